package dev.dockyard.executor.bash;

import dev.dockyard.protocol.CmdOutputMetadata;
import java.util.Optional;

/**
 * The prompt the persistent shell prints after every command. It carries the command's exit code,
 * the last background pid, user, host and working directory between two markers, so completion
 * is detected from the output stream itself, the moment the prompt arrives.
 */
final class Prompt {

    static final String BEGIN = "###DOCKYARD_PS1###";
    static final String END = "###DOCKYARD_PS1_END###";
    private static final String SEPARATOR = "|";

    /** PS1 as bash must see it: {@code $?} first, before anything could change it. */
    static final String PS1 = "\\n" + BEGIN + "$?" + SEPARATOR + "$!" + SEPARATOR + "\\u" + SEPARATOR + "\\h"
            + SEPARATOR + "$PWD" + END + "\\n";

    private Prompt() {
    }

    /** Where a complete prompt sits in the buffer; {@code start} includes PS1's leading newline. */
    record Match(int start, int end, CmdOutputMetadata metadata) {
    }

    static Optional<Match> find(OutputBuffer buffer, String pythonPath) {
        int begin = buffer.indexOf(BEGIN, buffer.scanFrom());
        while (begin >= 0) {
            int end = buffer.indexOf(END, begin + BEGIN.length());
            if (end < 0) {
                // the prompt is still arriving; look here again when more output comes
                buffer.scannedUpTo(begin);
                return Optional.empty();
            }
            // the working directory is last so that a '|' in it cannot shift the other fields
            String[] fields = buffer.substring(begin + BEGIN.length(), end).split("\\|", 5);
            if (fields.length == 5) {
                int start = begin > 0 && buffer.substring(begin - 1, begin).equals("\n") ? begin - 1 : begin;
                int stop = end + END.length();
                if (stop < buffer.length() && buffer.substring(stop, stop + 1).equals("\n")) {
                    stop++;
                }
                var metadata = new CmdOutputMetadata(parseInt(fields[0]), parseInt(fields[1]), fields[2],
                        fields[3], fields[4], pythonPath, "", "");
                return Optional.of(new Match(start, stop, metadata));
            }
            begin = buffer.indexOf(BEGIN, end);
        }
        buffer.scannedUpTo(buffer.length() - BEGIN.length());
        return Optional.empty();
    }

    private static int parseInt(String value) {
        try {
            return Integer.parseInt(value.strip());
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
