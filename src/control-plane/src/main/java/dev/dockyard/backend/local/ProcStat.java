package dev.dockyard.backend.local;

import java.util.Optional;

/**
 * The fields of {@code /proc/<pid>/stat} this backend reads. The command name (field 2) is in
 * parentheses and may itself hold spaces and parentheses: fields are counted after its last ')'.
 *
 * @param state      field 3: R, S, D, T, Z...; a zombie (Z) has exited and only waits to be reaped
 * @param session    field 6: the session id, the pid of the process {@code setsid} started
 * @param startTime  field 22: clock ticks after boot when the process started, which tells a
 *                   process from a later one given the same pid
 */
public record ProcStat(char state, long parent, long session, long startTime) {

    public boolean exited() {
        return state == 'Z' || state == 'X' || state == 'x';
    }

    public boolean stopped() {
        return state == 'T' || state == 't';
    }

    /** The fields of one stat line, or empty when it is not one. */
    public static Optional<ProcStat> parse(String line) {
        int close = line.lastIndexOf(')');
        if (close < 0 || close + 2 > line.length()) {
            return Optional.empty();
        }
        String[] fields = line.substring(close + 2).strip().split(" +");
        // fields[0] is field 3; field n is fields[n - 3]
        if (fields.length < 20 || fields[0].length() != 1) {
            return Optional.empty();
        }
        try {
            return Optional.of(new ProcStat(fields[0].charAt(0), Long.parseLong(fields[1]), Long.parseLong(fields[3]),
                    Long.parseLong(fields[19])));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
