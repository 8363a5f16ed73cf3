package dev.dockyard.executor.bash;

import dev.dockyard.protocol.CmdOutputMetadata;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The prompt the persistent shell prints after every command. It carries the command's exit code,
 * the last background pid, user, host, the shell's {@code PATH} and working directory between two
 * markers, so completion is detected from the output stream itself, the moment the prompt arrives.
 *
 * <p>OpenHands' prompt runs {@code which python} for {@code py_interpreter_path}; a command
 * substitution in the prompt would fork a process after every command, so the prompt carries
 * {@code PATH} instead and the executor looks {@code python} up along it as {@code which} does
 * (a few {@code stat} calls): a virtual environment activated, or {@code PATH} changed, shows at
 * the next prompt, and no {@code python} on the path is "", as in OpenHands.
 */
final class Prompt {

    static final String BEGIN = "###DOCKYARD_PS1###";
    static final String END = "###DOCKYARD_PS1_END###";
    private static final char SEPARATOR = '|';

    /**
     * PS1 as bash must see it: {@code $?} first, before anything could change it; PATH after its
     * length, so that any character in it is read back exactly; the working directory last, so
     * that a '|' in it cannot shift the other fields.
     */
    static final String PS1 = "\\n" + BEGIN + "$?" + SEPARATOR + "$!" + SEPARATOR + "\\u" + SEPARATOR + "\\h"
            + SEPARATOR + "${#PATH}" + SEPARATOR + "$PATH" + SEPARATOR + "$PWD" + END + "\\n";

    private Prompt() {
    }

    /** Where a complete prompt sits in the buffer; {@code start} includes PS1's leading newline. */
    record Match(int start, int end, CmdOutputMetadata metadata) {
    }

    static Optional<Match> find(OutputBuffer buffer) {
        int begin = buffer.indexOf(BEGIN, buffer.scanFrom());
        while (begin >= 0) {
            int end = buffer.indexOf(END, begin + BEGIN.length());
            if (end < 0) {
                // the prompt is still arriving; look here again when more output comes
                buffer.scannedUpTo(begin);
                return Optional.empty();
            }
            Optional<CmdOutputMetadata> metadata = parse(buffer.substring(begin + BEGIN.length(), end));
            if (metadata.isPresent()) {
                int start = begin > 0 && buffer.substring(begin - 1, begin).equals("\n") ? begin - 1 : begin;
                int stop = end + END.length();
                if (stop < buffer.length() && buffer.substring(stop, stop + 1).equals("\n")) {
                    stop++;
                }
                return Optional.of(new Match(start, stop, metadata.get()));
            }
            begin = buffer.indexOf(BEGIN, end);
        }
        buffer.scannedUpTo(buffer.length() - BEGIN.length());
        return Optional.empty();
    }

    /** The fields between the markers: {@code exit|pid|user|host|len(PATH)|PATH|PWD}. */
    static Optional<CmdOutputMetadata> parse(String fields) {
        int[] cut = new int[5];
        int from = 0;
        for (int i = 0; i < 5; i++) {
            cut[i] = fields.indexOf(SEPARATOR, from);
            if (cut[i] < 0) {
                return Optional.empty();
            }
            from = cut[i] + 1;
        }
        String pathAndPwd = fields.substring(cut[4] + 1);
        int pathLength = parseInt(fields.substring(cut[3] + 1, cut[4]));
        int pathEnd = pathLength >= 0 && pathLength < pathAndPwd.length()
                && pathAndPwd.charAt(pathLength) == SEPARATOR ? pathLength : pathAndPwd.indexOf(SEPARATOR);
        // (${#PATH} counts bytes in a C locale: then the PATH ends at its first '|')
        String path = pathEnd < 0 ? "" : pathAndPwd.substring(0, pathEnd);
        String pwd = pathAndPwd.substring(pathEnd + 1);
        return Optional.of(new CmdOutputMetadata(parseInt(fields.substring(0, cut[0])),
                parseInt(fields.substring(cut[0] + 1, cut[1])), fields.substring(cut[1] + 1, cut[2]),
                fields.substring(cut[2] + 1, cut[3]), pwd, which("python", path, pwd), "", ""));
    }

    /**
     * Debian's {@code which}: the first {@code dir/program} along {@code path} that is a regular
     * executable file, written as the PATH entry gives it (an empty entry is "."; a relative entry
     * is looked up from the working directory); "" when there is none.
     */
    static String which(String program, String path, String workingDir) {
        if (path.isEmpty()) {
            return "";
        }
        for (String entry : path.split(":", -1)) {
            String candidate = (entry.isEmpty() ? "." : entry) + "/" + program;
            try {
                Path file = Path.of(candidate);
                if (!file.isAbsolute()) {
                    file = Path.of(workingDir).resolve(file);
                }
                if (Files.isRegularFile(file) && Files.isExecutable(file)) {
                    return candidate;
                }
            } catch (InvalidPathException e) {
                // a PATH entry no file can have (a NUL): skipped, as which skips what it cannot test
            }
        }
        return "";
    }

    private static int parseInt(String value) {
        try {
            return Integer.parseInt(value.strip());
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
