package dev.dockyard.backend.remote;

import java.util.Optional;

/**
 * One server-sent event being read, line by line (WHATWG's event stream format): its name and
 * its data lines, dispatched at the blank line that ends it; comments ({@code :…}, the remote's
 * keep-alives) are skipped.
 */
final class ServerSentEvent {
    private String name = "message";
    private final StringBuilder data = new StringBuilder();
    private boolean hasData;

    /** Takes a line; answers the data of a {@code status} event the line ended. */
    Optional<String> add(String line) {
        if (line.isEmpty()) {
            Optional<String> ended = "status".equals(name) && hasData ? Optional.of(data.toString()) : Optional.empty();
            name = "message";
            data.setLength(0);
            hasData = false;
            return ended;
        }
        if (line.startsWith(":")) {
            return Optional.empty();
        }
        int colon = line.indexOf(':');
        String field = colon < 0 ? line : line.substring(0, colon);
        String value = colon < 0 ? "" : line.substring(colon + 1);
        if (value.startsWith(" ")) {
            value = value.substring(1);
        }
        if (field.equals("event")) {
            name = value;
        } else if (field.equals("data")) {
            if (hasData) {
                data.append('\n');
            }
            data.append(value);
            hasData = true;
        }
        return Optional.empty();
    }
}
