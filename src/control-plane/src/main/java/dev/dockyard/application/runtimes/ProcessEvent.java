package dev.dockyard.application.runtimes;

import dev.dockyard.executor.envd.ConnectWire;
import dev.dockyard.jsonp.Jsonp;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

/**
 * One event of a sandbox process, as Dockyard's API streams it (one Server-Sent Event each):
 * {@code start} {@code {"pid"}}; {@code stdout}, {@code stderr} or {@code terminal}
 * {@code {"data": base64}} as the process writes (bytes as they came: a chunk may end inside a
 * character); {@code keepalive} {@code {}} while it is silent; {@code end} {@code {"exitCode",
 * "exited", "status", "error"?}} (killed by a signal: exitCode -1, exited false); and instead of
 * an end, {@code error} {@code {"code", "message"}} when the sandbox could not run it or the stream
 * broke. Translated from envd's process events ({@code docs/PROTOCOL.md}, "envd").
 *
 * @param name the event's name
 * @param data its data, a JSON object
 */
public record ProcessEvent(String name, JsonObject data) {

    /** A stream that ended without envd's end-stream: the sandbox went away, or the connection did. */
    static final ProcessEvent CUT_SHORT = new ProcessEvent("error", Jsonp.createObjectBuilder()
            .add("code", "unavailable").add("message", "The sandbox's stream of the process ended early").build());

    /** Whether no event follows this one. */
    public boolean last() {
        return name.equals("end") || name.equals("error");
    }

    /** The event an envelope of envd's Start or Connect stream carries. */
    static ProcessEvent of(ConnectWire.Envelope envelope) {
        if (envelope.end()) {
            return envelope.error().map(e -> new ProcessEvent("error", Jsonp.createObjectBuilder()
                            .add("code", e.getString("code", "unknown")).add("message", e.getString("message", "")).build()))
                    // an end-stream with no error before the process's end: envd ended the stream (its deadline)
                    .orElse(new ProcessEvent("error", Jsonp.createObjectBuilder().add("code", "deadline_exceeded")
                            .add("message", "The stream ended before the process did").build()));
        }
        JsonObject event = envelope.message().getJsonObject("event");
        if (event == null) {
            return new ProcessEvent("keepalive", JsonValue.EMPTY_JSON_OBJECT);
        }
        if (event.get("start") instanceof JsonObject start) {
            return new ProcessEvent("start", Jsonp.createObjectBuilder()
                    .add("pid", start.getJsonNumber("pid").longValue()).build());
        }
        if (event.get("data") instanceof JsonObject data) {
            for (String[] kind : new String[][] {{"stdout", "stdout"}, {"stderr", "stderr"}, {"pty", "terminal"}}) {
                if (data.containsKey(kind[0])) {
                    return new ProcessEvent(kind[1], Jsonp.createObjectBuilder().add("data", data.getString(kind[0])).build());
                }
            }
        }
        if (event.get("end") instanceof JsonObject end) {
            var out = Jsonp.createObjectBuilder()
                    .add("exitCode", end.containsKey("exitCode") ? end.getJsonNumber("exitCode").intValue() : 0)
                    .add("exited", end.getBoolean("exited", false))
                    .add("status", end.getString("status", ""));
            if (end.containsKey("error")) {
                out.add("error", end.getString("error"));
            }
            return new ProcessEvent("end", out.build());
        }
        return new ProcessEvent("keepalive", JsonValue.EMPTY_JSON_OBJECT);
    }
}
