package dev.dockyard.application.runtimes;

import dev.dockyard.jsonp.Jsonp;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A process to start in a sandbox: what runs ({@code cmd} with {@code args}: no shell unless it is
 * the command), in which directory (null: the sandbox user's home), with which variables on top of
 * the runtime's, whether it reads stdin (else {@code /dev/null}), on a terminal of this size (both
 * 0: none, and stdout and stderr apart), under which tag, for how long at most (null: no limit;
 * when it passes the process is killed), and whether a confirmation the agent's security policy may
 * ask for is given.
 */
public record ProcessRequest(String cmd, List<String> args, Map<String, String> env, String cwd, boolean stdin,
                             int cols, int rows, String tag, Duration timeout, boolean confirmed) {

    public ProcessRequest {
        args = List.copyOf(args);
        env = Map.copyOf(env);
    }

    /** Whether it runs on a terminal. */
    public boolean terminal() {
        return cols > 0 && rows > 0;
    }

    /** The command line as the security analyzer rates it: the program and its arguments. */
    String commandLine() {
        return args.isEmpty() ? cmd : cmd + " " + String.join(" ", args);
    }

    /** envd's StartRequest. */
    JsonObject toEnvd() {
        JsonObjectBuilder process = Jsonp.createObjectBuilder().add("cmd", cmd)
                .add("args", Jsonp.createArrayBuilder(args))
                .add("envs", Jsonp.createObjectBuilder(env));
        if (cwd != null) {
            process.add("cwd", cwd);
        }
        JsonObjectBuilder start = Jsonp.createObjectBuilder().add("process", process).add("stdin", stdin);
        if (terminal()) {
            start.add("pty", Jsonp.createObjectBuilder().add("size",
                    Jsonp.createObjectBuilder().add("cols", cols).add("rows", rows)));
        }
        if (tag != null) {
            start.add("tag", tag);
        }
        return start.build();
    }
}
