package dev.dockyard.protocol;

/**
 * What the shell's prompt reported after a command: exit code (-1 while unknown, e.g. on a
 * timeout), the last background pid, user, host and working directory. {@code prefix} and
 * {@code suffix} are notes the executor wraps around the output (e.g. a timeout hint).
 */
public record CmdOutputMetadata(int exitCode, int pid, String username, String hostname,
                                String workingDir, String pyInterpreterPath, String prefix,
                                String suffix) {

    public CmdOutputMetadata {
        prefix = prefix == null ? "" : prefix;
        suffix = suffix == null ? "" : suffix;
    }

    public static CmdOutputMetadata unknown() {
        return new CmdOutputMetadata(-1, -1, null, null, null, null, "", "");
    }

    public CmdOutputMetadata withNotes(String newPrefix, String newSuffix) {
        return new CmdOutputMetadata(exitCode, pid, username, hostname, workingDir, pyInterpreterPath,
                newPrefix, newSuffix);
    }
}
