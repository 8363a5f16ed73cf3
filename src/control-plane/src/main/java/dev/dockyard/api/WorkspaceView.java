package dev.dockyard.api;

import dev.dockyard.jsonp.Jsonp;
import dev.dockyard.workspace.KeptWorkspace;
import dev.dockyard.workspace.Snapshot;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;

/** The bodies of kept workspaces and snapshots (API.md); volume and image names stay internal. */
final class WorkspaceView {

    private WorkspaceView() {
    }

    static JsonObject of(KeptWorkspace w, boolean inUse) {
        JsonObjectBuilder b = Jsonp.createObjectBuilder()
                .add("id", w.id())
                .add("userId", w.userId())
                .add("node", w.node() == null ? "" : w.node())
                .add("sourceRuntime", w.sourceRuntime() == null ? "" : w.sourceRuntime())
                .add("createdAt", w.createdAt().toString())
                .add("inUse", inUse);
        if (w.sizeBytes() != null) {
            b.add("sizeBytes", w.sizeBytes());
        } else {
            b.addNull("sizeBytes");
        }
        if (inUse && w.attachedRuntime() != null) {
            b.add("runtimeId", w.attachedRuntime());
        }
        return b.build();
    }

    static JsonObject of(Snapshot s) {
        return Jsonp.createObjectBuilder()
                .add("id", s.id())
                .add("name", s.name())
                .add("runtimeId", s.runtimeId())
                .add("userId", s.userId())
                .add("node", s.node() == null ? "" : s.node())
                .add("sizeBytes", s.sizeBytes())
                .add("createdAt", s.createdAt().toString())
                .build();
    }
}
