package dev.dockyard.backend.local;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The host's processes as {@code /proc} shows them ({@code proc} is a parameter so that tests can
 * hand a directory of their own), and signals sent with kill(1): Java signals no process group
 * and sends no SIGSTOP.
 */
public class ProcessTable {

    private static final Logger LOG = Logger.getLogger(ProcessTable.class.getName());

    private final Path proc;

    public ProcessTable(Path proc) {
        this.proc = proc;
    }

    public static ProcessTable host() {
        return new ProcessTable(Path.of("/proc"));
    }

    /** What /proc says of {@code pid} now, or empty when there is no such process. */
    public Optional<ProcStat> stat(long pid) {
        try {
            return ProcStat.parse(Files.readString(proc.resolve(Long.toString(pid)).resolve("stat"),
                    StandardCharsets.ISO_8859_1));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            // the process exited while being read
            return Optional.empty();
        }
    }

    /** The identity of the live process {@code pid}, or empty when there is none. */
    public Optional<ProcessIdentity> identify(long pid) {
        return stat(pid).filter(s -> !s.exited()).map(s -> new ProcessIdentity(pid, s.startTime()));
    }

    /** Whether {@code process} is still running (a reused pid is not it). */
    public boolean alive(ProcessIdentity process) {
        return process.aliveAs(stat(process.pid()).orElse(null));
    }

    /**
     * The live processes whose environment holds {@code variable=value}, of user {@code uid} when
     * it is not null: what a sandbox started, however it forked, detached or set up sessions.
     */
    public List<Long> carrying(String variable, String value, Integer uid) {
        byte[] wanted = (variable + "=" + value).getBytes(StandardCharsets.UTF_8);
        List<Long> found = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(proc, p -> isPid(p.getFileName().toString()))) {
            for (Path entry : entries) {
                long pid = Long.parseLong(entry.getFileName().toString());
                try {
                    if (uid != null && !uid.equals(Files.getAttribute(entry, "unix:uid"))) {
                        continue;
                    }
                    if (holds(Files.readAllBytes(entry.resolve("environ")), wanted)
                            && stat(pid).map(s -> !s.exited()).orElse(false)) {
                        found.add(pid);
                    }
                } catch (IOException | UnsupportedOperationException e) {
                    // gone meanwhile, or another user's process this control plane may not read
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot list " + proc + ": " + e.getMessage(), e);
        }
        return found;
    }

    private static boolean isPid(String name) {
        return !name.isEmpty() && name.chars().allMatch(Character::isDigit);
    }

    /** Whether a NUL-separated environment block holds {@code entry} as one of its entries. */
    static boolean holds(byte[] environ, byte[] entry) {
        int start = 0;
        for (int i = 0; i <= environ.length; i++) {
            if (i == environ.length || environ[i] == 0) {
                if (i - start == entry.length && Arrays.equals(environ, start, i, entry, 0, entry.length)) {
                    return true;
                }
                start = i + 1;
            }
        }
        return false;
    }

    /** Sends {@code signal} (TERM, KILL, STOP, CONT) to each of {@code pids}; one that is gone is no error. */
    public void signal(String signal, List<Long> pids) {
        if (pids.isEmpty()) {
            return;
        }
        List<String> command = new ArrayList<>(List.of("kill", "-s", signal));
        pids.forEach(p -> command.add(Long.toString(p)));
        try {
            Process kill = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!kill.waitFor(10, TimeUnit.SECONDS)) {
                kill.destroyForcibly();
            }
        } catch (IOException e) {
            throw new IllegalStateException("could not run kill: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        LOG.log(Level.FINE, "SIG{0} to {1}", new Object[] {signal, pids});
    }
}
