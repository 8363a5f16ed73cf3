package dev.dockyard.workspace;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The microagents of a runtime's repository (OpenHands' {@code .openhands/microagents/*.md}, and
 * Dockyard's {@code .dockyard/microagents/*.md}): markdown with a front matter ({@code name},
 * {@code type}, {@code agent}, {@code triggers}), read from the sandbox when asked for.
 */
@ApplicationScoped
public class Microagents {

    private static final String SEPARATOR = "=====DOCKYARD-MICROAGENT ";

    @Inject
    WorkspaceSetup commands;

    /** One microagent: its front matter and its body. */
    public record Microagent(String source, String name, String type, String agent, List<String> triggers,
                             String content) {
        public JsonObject toJson() {
            JsonArrayBuilder t = Json.createArrayBuilder();
            triggers.forEach(t::add);
            JsonObjectBuilder b = Json.createObjectBuilder().add("name", name).add("type", type).add("source", source)
                    .add("triggers", t).add("content", content);
            if (agent != null) {
                b.add("agent", agent);
            }
            return b.build();
        }
    }

    public List<Microagent> of(URI executor, String sessionKey, RepositorySpec repository) {
        String dir = repository.directory(WorkspaceSetup.WORKSPACE);
        String listing = commands.run(executor, sessionKey, "reading microagents", "cd " + WorkspaceSetup.quote(dir)
                + " 2>/dev/null || exit 0; for f in .openhands/microagents/*.md .dockyard/microagents/*.md; do "
                + "[ -f \"$f\" ] || continue; printf '\\n" + SEPARATOR + "%s=====\\n' \"$f\"; cat \"$f\"; done",
                Duration.ofSeconds(30));
        return parse(listing);
    }

    static List<Microagent> parse(String listing) {
        List<Microagent> agents = new ArrayList<>();
        String[] parts = ("\n" + listing).split("\n" + SEPARATOR);
        for (int i = 1; i < parts.length; i++) {
            int end = parts[i].indexOf("=====\n");
            if (end < 0) {
                continue;
            }
            String source = parts[i].substring(0, end);
            agents.add(parse(source, parts[i].substring(end + 6)));
        }
        return agents;
    }

    /** Front matter between two "---" lines: key: value, lists as "- item" lines or [a, b]. */
    static Microagent parse(String source, String text) {
        Map<String, Object> front = new LinkedHashMap<>();
        String body = text;
        String normalised = text.replace("\r\n", "\n");
        if (normalised.startsWith("---\n")) {
            int close = normalised.indexOf("\n---", 4);
            if (close > 0) {
                String key = null;
                for (String line : normalised.substring(4, close).split("\n")) {
                    String l = line.strip();
                    if (l.startsWith("- ") && key != null) {
                        listOf(front, key).add(unquote(l.substring(2)));
                    } else if (l.contains(":")) {
                        key = l.substring(0, l.indexOf(':')).strip();
                        String value = l.substring(l.indexOf(':') + 1).strip();
                        if (value.startsWith("[") && value.endsWith("]")) {
                            for (String item : value.substring(1, value.length() - 1).split(",")) {
                                if (!item.isBlank()) {
                                    listOf(front, key).add(unquote(item.strip()));
                                }
                            }
                        } else if (!value.isEmpty()) {
                            front.put(key, unquote(value));
                        }
                    }
                }
                int bodyStart = normalised.indexOf('\n', close + 1);
                body = bodyStart < 0 ? "" : normalised.substring(bodyStart + 1);
            }
        }
        String file = source.substring(source.lastIndexOf('/') + 1).replaceAll("\\.md$", "");
        String name = front.get("name") instanceof String n ? n : file;
        @SuppressWarnings("unchecked")
        List<String> triggers = front.get("triggers") instanceof List<?> l ? (List<String>) l : List.of();
        String type = front.get("type") instanceof String t ? t : triggers.isEmpty() ? "repo" : "knowledge";
        String agent = front.get("agent") instanceof String a ? a : null;
        return new Microagent(source, name, type, agent, triggers, body.strip());
    }

    @SuppressWarnings("unchecked")
    private static List<String> listOf(Map<String, Object> front, String key) {
        return (List<String>) front.computeIfAbsent(key, k -> new ArrayList<String>());
    }

    private static String unquote(String s) {
        return s.length() >= 2 && (s.startsWith("\"") && s.endsWith("\"") || s.startsWith("'") && s.endsWith("'"))
                ? s.substring(1, s.length() - 1) : s;
    }
}
