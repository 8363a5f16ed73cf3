package dev.dockyard.backend.local;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
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
    private static final byte[] LOOPBACK = {127, 0, 0, 1};
    /** ::ffff:0:0/96, IPv4 addresses as an IPv6 socket sees them. */
    private static final byte[] MAPPED_PREFIX = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, -1};

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

    /**
     * The sockets (their inodes) listening on {@code port} that a connection to 127.0.0.1 may
     * reach: bound to 127.0.0.1 or to any address, over IPv4 or IPv6 (a v4-mapped 127.0.0.1 too).
     * Only this process's network namespace is seen, which is the one local sandboxes share.
     */
    public Set<Long> listeners(int port) {
        Set<Long> found = new HashSet<>();
        for (String table : List.of("tcp", "tcp6")) {
            try {
                found.addAll(listening(Files.readString(proc.resolve("net").resolve(table), StandardCharsets.ISO_8859_1),
                        port));
            } catch (NoSuchFileException e) {
                // no IPv6 on this host
            } catch (IOException e) {
                throw new IllegalStateException("cannot read " + proc.resolve("net").resolve(table) + ": "
                        + e.getMessage(), e);
            }
        }
        return found;
    }

    /** The inodes of the LISTEN sockets of one /proc/net/tcp or tcp6 table that 127.0.0.1:{@code port} reaches. */
    static Set<Long> listening(String table, int port) {
        Set<Long> found = new HashSet<>();
        for (String line : table.split("\n")) {
            // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
            String[] fields = line.strip().split(" +");
            if (fields.length < 10 || !fields[3].equals("0A")) {
                continue;
            }
            int colon = fields[1].indexOf(':');
            try {
                if (colon < 0 || Integer.parseInt(fields[1].substring(colon + 1), 16) != port
                        || !reachesLoopback(address(fields[1].substring(0, colon)))) {
                    continue;
                }
                found.add(Long.parseLong(fields[9]));
            } catch (NumberFormatException e) {
                // the header, or a line this parser does not know
            }
        }
        return found;
    }

    /** An address as the kernel prints it: 32-bit words in hex, each in this machine's byte order. */
    static byte[] address(String hex) {
        if (hex.length() != 8 && hex.length() != 32) {
            throw new NumberFormatException(hex);
        }
        ByteBuffer bytes = ByteBuffer.allocate(hex.length() / 2).order(ByteOrder.nativeOrder());
        for (int i = 0; i < hex.length(); i += 8) {
            bytes.putInt(Integer.parseUnsignedInt(hex.substring(i, i + 8), 16));
        }
        return bytes.array();
    }

    /** 127.0.0.1, 0.0.0.0, :: or ::ffff:127.0.0.1: a connection to 127.0.0.1 may land there. */
    private static boolean reachesLoopback(byte[] address) {
        boolean any = true;
        for (byte b : address) {
            any &= b == 0;
        }
        if (any) {
            return true;
        }
        if (address.length == 4) {
            return Arrays.equals(address, LOOPBACK);
        }
        return Arrays.equals(address, 0, 12, MAPPED_PREFIX, 0, 12) && Arrays.equals(address, 12, 16, LOOPBACK, 0, 4);
    }

    /** {@code pid} and every process descending from it now, by their parents in /proc. */
    public Set<Long> descendants(long pid) {
        Map<Long, List<Long>> children = new HashMap<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(proc, p -> isPid(p.getFileName().toString()))) {
            for (Path entry : entries) {
                long child = Long.parseLong(entry.getFileName().toString());
                stat(child).ifPresent(s -> children.computeIfAbsent(s.parent(), p -> new ArrayList<>()).add(child));
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot list " + proc + ": " + e.getMessage(), e);
        }
        Set<Long> found = new LinkedHashSet<>();
        Deque<Long> next = new ArrayDeque<>(List.of(pid));
        while (!next.isEmpty()) {
            long p = next.poll();
            if (found.add(p)) {
                next.addAll(children.getOrDefault(p, List.of()));
            }
        }
        return found;
    }

    /** The inodes of the sockets {@code pid} holds open; none when it is gone or not this process's to read. */
    public Set<Long> sockets(long pid) {
        Set<Long> found = new HashSet<>();
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(proc.resolve(Long.toString(pid)).resolve("fd"))) {
            for (Path fd : fds) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[") && target.endsWith("]")) {
                        found.add(Long.parseLong(target.substring(8, target.length() - 1)));
                    }
                } catch (IOException | NumberFormatException e) {
                    // closed meanwhile
                }
            }
        } catch (IOException e) {
            // gone, or another user's process
        }
        return found;
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
