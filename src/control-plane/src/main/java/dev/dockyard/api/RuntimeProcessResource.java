package dev.dockyard.api;

import dev.dockyard.application.runtimes.ProcessEvent;
import dev.dockyard.application.runtimes.ProcessRequest;
import dev.dockyard.application.runtimes.RuntimeQueries;
import dev.dockyard.application.runtimes.SandboxProcesses;
import dev.dockyard.jsonp.Jsonp;
import dev.dockyard.runtime.SandboxRuntime;
import jakarta.inject.Inject;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A runtime's processes beside its persistent shell ({@link SandboxProcesses}): start one and
 * follow it as Server-Sent Events ({@link ProcessEvent}), list them, attach to one again by pid,
 * write to its stdin or close it, signal it, resize its terminal. The persistent shell is for an
 * agent's commands one at a time; these are for what runs beside it (servers, watchers, long
 * builds) and for clients that want stdout and stderr apart, stdin, exit codes of their own. A
 * start is rated and audited as a shell command is, under the agent's security policy.
 */
@Path("runtimes/{id}/processes")
@Produces(MediaType.APPLICATION_JSON)
public class RuntimeProcessResource {

    static final Set<String> FIELDS = Set.of("cmd", "args", "env", "cwd", "stdin", "terminal", "tag", "timeoutSeconds",
            "confirmation_state");
    /** The longest limit a process takes: what envd's Connect-Timeout-Ms carries (10 digits of milliseconds). */
    static final int MAX_TIMEOUT_SECONDS = 9_999_999;
    private static final Pattern ENV_NAME = Pattern.compile("^[A-Za-z_][A-Za-z0-9_]*$");
    /** What one stdin write carries at most: input, not a file transfer (the files API is for those). */
    static final int MAX_INPUT_BYTES = 1024 * 1024;

    @Inject
    Caller caller;

    @Inject
    RuntimeQueries runtimes;

    @Inject
    SandboxProcesses processes;

    /**
     * Starts a process: 200 {@code text/event-stream} from its {@code start} to its {@code end}. The
     * process goes on if the client goes away (attach again with {@code GET {pid}/events}); a
     * command the sandbox cannot start (a missing cwd) is a 400 before any event.
     */
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces({MediaType.SERVER_SENT_EVENTS, "application/problem+json"})
    public Response start(@PathParam("id") String id, @Context HttpServletResponse servlet, JsonObject body) {
        ProcessRequest request = read(body);
        return stream(processes.start(caller.userId(), visible(id), request), servlet);
    }

    /** The live processes: {@code {"processes": [{"pid", "tag"?, "cmd", "args", "cwd"?}]}}; never their environment. */
    @GET
    public JsonObject list(@PathParam("id") String id) {
        JsonArray list = processes.list(visible(id));
        return Jsonp.createObjectBuilder().add("processes", list).build();
    }

    /** Attaches to a running process: {@code start}, then what it does from now on (output before is not kept). */
    @GET
    @Path("{pid}/events")
    @Produces({MediaType.SERVER_SENT_EVENTS, "application/problem+json"})
    public Response attach(@PathParam("id") String id, @PathParam("pid") String pid,
                           @Context HttpServletResponse servlet) {
        return stream(processes.attach(visible(id), pid(pid)), servlet);
    }

    /** Writes the body's bytes to the process's stdin (its terminal, with {@code ?terminal=true}): 204. */
    @POST
    @Path("{pid}/stdin")
    @Consumes(MediaType.WILDCARD)
    public Response input(@PathParam("id") String id, @PathParam("pid") String pid,
                          @QueryParam("terminal") String terminal, InputStream body) throws IOException {
        byte[] data = body == null ? new byte[0] : body.readNBytes(MAX_INPUT_BYTES + 1);
        if (data.length > MAX_INPUT_BYTES) {
            throw Problem.of(Problem.Kind.PAYLOAD_TOO_LARGE, "One write to stdin carries at most 1 MiB: "
                    + "send more in several, or put a file with the files API").toException();
        }
        processes.input(visible(id), pid(pid), data, QueryParams.bool(terminal, "terminal", false));
        return Response.noContent().build();
    }

    /** Closes the process's stdin (an end of input): 204. */
    @DELETE
    @Path("{pid}/stdin")
    public Response closeInput(@PathParam("id") String id, @PathParam("pid") String pid) {
        processes.closeInput(visible(id), pid(pid));
        return Response.noContent().build();
    }

    /** {@code {"signal": "SIGTERM"|"SIGKILL"}} to the process and its group: 204; an unknown pid 404. */
    @POST
    @Path("{pid}/signal")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response signal(@PathParam("id") String id, @PathParam("pid") String pid, JsonObject body) {
        JsonObject given = body == null ? JsonValue.EMPTY_JSON_OBJECT : body;
        JsonFields.requireOnly(given, Set.of("signal"), "the body");
        processes.signal(visible(id), pid(pid), JsonFields.string(given, "signal", "SIGTERM", "signal"));
        return Response.noContent().build();
    }

    /** {@code {"cols", "rows"}}: resizes the terminal of a process started with one: 204. */
    @PUT
    @Path("{pid}/terminal")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response resize(@PathParam("id") String id, @PathParam("pid") String pid, JsonObject body) {
        JsonObject given = body == null ? JsonValue.EMPTY_JSON_OBJECT : body;
        JsonFields.requireOnly(given, Set.of("cols", "rows"), "the body");
        processes.resize(visible(id), pid(pid), size(given, "cols"), size(given, "rows"));
        return Response.noContent().build();
    }

    /**
     * The events as Server-Sent Events, each sent as it comes (through the servlet response: Liberty
     * holds a first small flush of a JAX-RS entity back, which would keep {@code start} from the
     * client); the stream to the sandbox closed at the end.
     */
    private static Response stream(SandboxProcesses.Events events, HttpServletResponse servlet) {
        StreamingOutput out = sink -> {
            try (events) {
                for (Optional<ProcessEvent> e = events.next(); e.isPresent(); e = events.next()) {
                    write(sink, e.get());
                    servlet.flushBuffer();
                }
            }
        };
        return Response.ok(out, MediaType.SERVER_SENT_EVENTS_TYPE).header("Cache-Control", "no-store")
                .header("X-Accel-Buffering", "no").build();
    }

    static void write(OutputStream sink, ProcessEvent event) throws IOException {
        String frame = event.name().equals("keepalive") ? ": keepalive\n\n"
                : "event: " + event.name() + "\ndata: " + event.data() + "\n\n";
        sink.write(frame.getBytes(StandardCharsets.UTF_8));
        sink.flush();
    }

    /** The start request, strictly: every field checked, unknown ones refused with the nearest known name. */
    static ProcessRequest read(JsonObject body) {
        if (body == null) {
            throw Problem.of(Problem.Kind.VALIDATION, "A JSON body is required, e.g. {\"cmd\": \"/bin/bash\", "
                    + "\"args\": [\"-c\", \"echo hello\"]}").toException();
        }
        JsonFields.requireOnly(body, FIELDS, "the body");
        String cmd = JsonFields.string(body, "cmd", null, "cmd");
        if (cmd == null || cmd.isBlank()) {
            throw Problem.of(Problem.Kind.VALIDATION, "cmd is required: the program to run, e.g. \"/bin/bash\"")
                    .toException();
        }
        List<String> args = new ArrayList<>();
        JsonValue given = body.get("args");
        if (given != null && given.getValueType() != JsonValue.ValueType.NULL) {
            if (!(given instanceof JsonArray array) || !array.stream().allMatch(JsonString.class::isInstance)) {
                throw Problem.of(Problem.Kind.VALIDATION, "args must be an array of strings").toException();
            }
            array.getValuesAs(JsonString.class).forEach(s -> args.add(s.getString()));
        }
        Map<String, String> env = new LinkedHashMap<>();
        for (Map.Entry<String, JsonValue> e : JsonFields.object(body, "env", "env").entrySet()) {
            if (!ENV_NAME.matcher(e.getKey()).matches() || !(e.getValue() instanceof JsonString value)) {
                throw Problem.of(Problem.Kind.VALIDATION, "env names must be shell variable names and values strings "
                        + "(offending name: " + e.getKey() + ")").toException();
            }
            env.put(e.getKey(), value.getString());
        }
        JsonObject terminal = JsonFields.object(body, "terminal", "terminal");
        JsonFields.requireOnly(terminal, Set.of("cols", "rows"), "terminal");
        int cols = terminal.isEmpty() ? 0 : size(terminal, "cols");
        int rows = terminal.isEmpty() ? 0 : size(terminal, "rows");
        int timeout = JsonFields.integer(body, "timeoutSeconds", 0, "timeoutSeconds");
        if (timeout < 0 || timeout > MAX_TIMEOUT_SECONDS) {
            throw Problem.of(Problem.Kind.VALIDATION, "timeoutSeconds must be from 0 (no limit) to "
                    + MAX_TIMEOUT_SECONDS).toException();
        }
        String confirmation = JsonFields.string(body, "confirmation_state", null, "confirmation_state");
        String cwd = JsonFields.string(body, "cwd", null, "cwd");
        if (cwd != null && !cwd.startsWith("/")) {
            throw Problem.of(Problem.Kind.VALIDATION, "cwd must be an absolute path in the sandbox").toException();
        }
        return new ProcessRequest(cmd, args, env, cwd, JsonFields.bool(body, "stdin", false, "stdin"), cols, rows,
                JsonFields.string(body, "tag", null, "tag"), timeout == 0 ? null : Duration.ofSeconds(timeout),
                "confirmed".equals(confirmation));
    }

    private static int size(JsonObject o, String key) {
        int n = JsonFields.integer(o, key, 0, key);
        if (n < 1 || n > 1000) {
            throw Problem.of(Problem.Kind.VALIDATION, key + " must be from 1 to 1000").toException();
        }
        return n;
    }

    private static long pid(String pid) {
        try {
            long n = Long.parseLong(pid);
            if (n > 0 && n <= Integer.MAX_VALUE) {
                return n;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw Problem.of(Problem.Kind.NOT_FOUND, "No process " + pid).toException();
    }

    /** The runtime if the caller may see it; someone else's answers 404 exactly like an unknown id. */
    private SandboxRuntime visible(String id) {
        return RuntimeSnapshotResource.visible(runtimes, caller, id);
    }
}
