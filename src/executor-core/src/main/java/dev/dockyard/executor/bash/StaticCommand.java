package dev.dockyard.executor.bash;

import dev.dockyard.protocol.CmdOutputMetadata;
import dev.dockyard.protocol.CmdOutputObservation;
import dev.dockyard.protocol.CmdRunAction;
import dev.dockyard.protocol.PythonNumbers;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * An {@code is_static} command: a fresh {@code bash -c} in the given directory, untouched by and
 * not touching the persistent shell's state. Its output is cleaned as the persistent shell's
 * (OpenHands runs it in a fresh tmux session). Killed at its hard timeout, unlike a persistent-shell
 * command, because nobody could interact with it afterwards.
 */
public final class StaticCommand {

    private static final int MAX_BYTES = 4 * 1024 * 1024;

    private StaticCommand() {
    }

    public static CmdOutputObservation run(String shell, CmdRunAction action, Path cwd, Map<String, String> env,
                                           Duration timeout) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(shell, "-c", action.command())
                .directory(cwd.toFile()).redirectErrorStream(true);
        builder.environment().clear();
        builder.environment().putAll(env);
        Process process = builder.start();
        process.getOutputStream().close();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Thread drain = new Thread(() -> copyBounded(process.getInputStream(), out), "static-command-output");
        drain.setDaemon(true);
        drain.start();
        try {
            boolean finished = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (!finished) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
            }
            drain.join(1000);
            String content;
            synchronized (out) {
                content = BashSession.clean(out.toString(StandardCharsets.UTF_8));
            }
            int exitCode = finished ? process.exitValue() : -1;
            String suffix = finished ? "\n[The command completed with exit code " + exitCode + ".]"
                    : "\n[The command timed out after " + PythonNumbers.seconds(action.timeout(), timeout)
                    + " seconds and was killed.]";
            var metadata = new CmdOutputMetadata(exitCode, -1, env.get("USER"), null, cwd.toString(), null, "", suffix);
            return new CmdOutputObservation(content, action.command(), action.hidden(), metadata);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new IOException("interrupted", e);
        }
    }

    private static void copyBounded(InputStream in, ByteArrayOutputStream out) {
        byte[] chunk = new byte[8192];
        try (in) {
            int n;
            while ((n = in.read(chunk)) >= 0) {
                synchronized (out) {
                    if (out.size() < MAX_BYTES) {
                        out.write(chunk, 0, Math.min(n, MAX_BYTES - out.size()));
                    }
                }
            }
        } catch (IOException ignored) {
            // the process was killed: what was read is all there is
        }
    }
}
