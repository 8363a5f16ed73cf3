package dev.dockyard.api;

import dev.dockyard.jsonp.Jsonp;
import dev.dockyard.placement.NodeState;
import dev.dockyard.placement.Placement;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/**
 * The backend nodes (admins only): each one's type, health (its last probe), what it holds and its
 * capacity. See {@code dev.dockyard.placement}.
 */
@Path("nodes")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class NodeResource {

    @Inject
    Caller caller;

    @Inject
    Placement placement;

    @GET
    public JsonObject list() {
        if (!caller.isAdmin()) {
            throw Problem.of(Problem.Kind.FORBIDDEN, "Only admins read the backend nodes").toException();
        }
        JsonArrayBuilder nodes = Jsonp.createArrayBuilder();
        placement.states().forEach(s -> nodes.add(view(s)));
        return Jsonp.createObjectBuilder().add("nodes", nodes).build();
    }

    static JsonObject view(NodeState s) {
        JsonObjectBuilder view = Jsonp.createObjectBuilder()
                .add("name", s.name())
                .add("type", s.type())
                .add("healthy", s.health().healthy())
                .add("lastCheckedAt", String.valueOf(s.health().checkedAt()));
        if (s.health().error() != null) {
            view.add("error", s.health().error());
        }
        return view.add("runtimes", s.usage().runtimes())
                .add("memoryMb", s.usage().memoryMb())
                .add("capacity", Jsonp.createObjectBuilder()
                        .add("maxRuntimes", limit(s.capacity().maxRuntimes()))
                        .add("maxMemoryMb", limit(s.capacity().maxMemoryMb())))
                .build();
    }

    private static JsonValue limit(Integer max) {
        return max == null ? JsonValue.NULL : Jsonp.createValue(max);
    }
}
