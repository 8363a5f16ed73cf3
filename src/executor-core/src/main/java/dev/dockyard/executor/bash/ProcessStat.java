package dev.dockyard.executor.bash;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The fields of {@code /proc/<pid>/stat} that tell a shell's jobs apart: its parent, its process
 * group, whether it is stopped, when it started, and the foreground group of its terminal.
 *
 * @param state one of proc(5)'s letters: {@code T} and {@code t} are stopped processes
 * @param terminalGroup the terminal's foreground process group ({@code tpgid}); 0 or less when the
 *                      process has no terminal or the kernel does not say (gVisor always says 0)
 * @param startTicks clock ticks after boot when the process started
 */
record ProcessStat(long pid, char state, long parent, long group, long terminalGroup, long startTicks) {

    /** Reads a process's stat; empty when it is gone or cannot be read. */
    static Optional<ProcessStat> of(long pid) {
        try {
            return parse(Files.readString(Path.of("/proc", String.valueOf(pid), "stat"), StandardCharsets.UTF_8));
        } catch (IOException | RuntimeException gone) {
            return Optional.empty();
        }
    }

    /**
     * Parses one stat line. The command name in parentheses may hold spaces and parentheses of its
     * own, so the fields are counted from the last closing parenthesis.
     */
    static Optional<ProcessStat> parse(String line) {
        int open = line.indexOf('(');
        int close = line.lastIndexOf(')');
        if (open <= 0 || close < open) {
            return Optional.empty();
        }
        String[] rest = line.substring(close + 1).trim().split("\\s+");
        // after the name: state(3) ppid(4) pgrp(5) session(6) tty_nr(7) tpgid(8) ... starttime(22)
        if (rest.length < 20 || rest[0].length() != 1) {
            return Optional.empty();
        }
        try {
            return Optional.of(new ProcessStat(Long.parseLong(line.substring(0, open).trim()), rest[0].charAt(0),
                    Long.parseLong(rest[1]), Long.parseLong(rest[2]), Long.parseLong(rest[5]),
                    Long.parseLong(rest[19])));
        } catch (NumberFormatException malformed) {
            return Optional.empty();
        }
    }

    /**
     * Clock ticks after boot now, on the clock of {@link #startTicks}: {@code /proc/uptime} in
     * hundredths of a second (USER_HZ is 100 on Linux and gVisor); 0 when it cannot be read.
     */
    static long ticksNow() {
        try {
            String uptime = Files.readString(Path.of("/proc/uptime"), StandardCharsets.US_ASCII).trim().split("\\s+")[0];
            return new BigDecimal(uptime).movePointRight(2).longValue();
        } catch (IOException | RuntimeException unreadable) {
            return 0;
        }
    }

    /**
     * The last process id handed out, or at least the highest one in use: {@code /proc/loadavg}'s
     * last field where the kernel fills it (Linux, in the reader's pid namespace), else the highest
     * id {@code /proc} lists (gVisor's loadavg says 0); 0 when neither can be read. Ids are handed
     * out upwards from the last one, so a process started later has a higher one until they wrap.
     */
    static long lastPid() {
        try {
            String[] loadavg = Files.readString(Path.of("/proc/loadavg"), StandardCharsets.US_ASCII).trim().split("\\s+");
            long last = Long.parseLong(loadavg[loadavg.length - 1]);
            if (last > 0) {
                return last;
            }
        } catch (IOException | RuntimeException unreadable) {
            // the listing below
        }
        try (Stream<Path> entries = Files.list(Path.of("/proc"))) {
            return entries.map(entry -> entry.getFileName().toString())
                    .filter(name -> !name.isEmpty() && name.length() < 19 && name.chars().allMatch(Character::isDigit))
                    .mapToLong(Long::parseLong).max().orElse(0);
        } catch (IOException | RuntimeException unreadable) {
            return 0;
        }
    }

    boolean stopped() {
        return state == 'T' || state == 't';
    }
}
