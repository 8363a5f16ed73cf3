package dev.dockyard.workspace;

import dev.dockyard.backend.BackendException;
import dev.dockyard.jsonp.Jsonp;
import dev.dockyard.runtime.RepositorySpec;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The microagents of a runtime's repository (OpenHands' {@code .openhands/microagents/*.md}, and
 * Dockyard's {@code .dockyard/microagents/*.md}): markdown with a front matter ({@code name},
 * {@code type}, {@code agent}, {@code triggers}), read from the sandbox when asked for.
 */
@ApplicationScoped
public class Microagents {

    /** A microagent is read up to this many bytes; a longer one ends with {@link #cutMarker}. */
    static final int MAX_FILE_BYTES = 256 * 1024;
    /**
     * Bytes read per command: base64 makes them 28,000 characters, under the 30,000 characters an
     * observation carries, and base64 survives the trimming of trailing whitespace.
     */
    static final int CHUNK_BYTES = 21_000;
    /**
     * A listed file: its size, one space, its path. Not a tab between them: the executor renders its
     * terminal as tmux does for OpenHands, which turns a tab into spaces up to the next tab stop.
     */
    private static final Pattern LISTED = Pattern.compile(" *(\\d+) (.+)");

    @Inject
    WorkspaceSetup commands;

    /** One microagent: its front matter and its body. */
    public record Microagent(String source, String name, String type, String agent, List<String> triggers,
                             String content) {
        public JsonObject toJson() {
            JsonArrayBuilder t = Jsonp.createArrayBuilder();
            triggers.forEach(t::add);
            JsonObjectBuilder b = Jsonp.createObjectBuilder().add("name", name).add("type", type).add("source", source)
                    .add("triggers", t).add("content", content);
            if (agent != null) {
                b.add("agent", agent);
            }
            return b.build();
        }
    }

    /**
     * Lists the files with their sizes, then reads each in base64 chunks: one command's output is
     * cut at 30,000 characters, so a single {@code cat} of everything would lose the middle of any
     * microagent (or set of them) longer than that.
     */
    public List<Microagent> of(URI executor, String sessionKey, RepositorySpec repository) {
        String dir = WorkspaceSetup.quote(repository.directory(WorkspaceSetup.WORKSPACE));
        String listing = commands.run(executor, sessionKey, "listing microagents", "cd " + dir
                + " 2>/dev/null || exit 0; for f in .openhands/microagents/*.md .dockyard/microagents/*.md; do "
                + "if [ -f \"$f\" ]; then printf '%s %s\\n' \"$(wc -c < \"$f\")\" \"$f\"; fi; done",
                Duration.ofSeconds(30));
        List<Microagent> agents = new ArrayList<>();
        for (String line : listing.split("\n")) {
            Matcher listed = LISTED.matcher(line);
            if (listed.matches()) {
                String source = listed.group(2);
                long size = Long.parseLong(listed.group(1));
                agents.add(parse(source, read(executor, sessionKey, dir, source, size)));
            }
        }
        return agents;
    }

    /** The file's text, up to {@link #MAX_FILE_BYTES}, chunk by chunk. */
    private String read(URI executor, String sessionKey, String dir, String source, long size) {
        long wanted = Math.min(size, MAX_FILE_BYTES);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream((int) wanted);
        while (bytes.size() < wanted) {
            long count = Math.min(CHUNK_BYTES, wanted - bytes.size());
            String chunk = commands.run(executor, sessionKey, "reading microagent " + source, "cd " + dir
                    + " && tail -c +" + (bytes.size() + 1) + " -- " + WorkspaceSetup.quote(source) + " | head -c "
                    + count + " | base64 -w0", Duration.ofSeconds(30)).strip();
            byte[] decoded;
            try {
                decoded = Base64.getDecoder().decode(chunk);
            } catch (IllegalArgumentException e) {
                throw new BackendException("reading microagent " + source + ": the sandbox's answer is not base64");
            }
            if (decoded.length == 0) {
                break; // the file shrank since it was listed
            }
            bytes.writeBytes(decoded);
        }
        String text = bytes.toString(StandardCharsets.UTF_8);
        if (size <= MAX_FILE_BYTES) {
            return text;
        }
        // the cut may fall inside a character: its replacement is no part of the file
        return text.replaceAll("\uFFFD+$", "") + cutMarker(source, size);
    }

    static String cutMarker(String source, long size) {
        return "\n\n[Microagent cut: " + source + " has " + size + " bytes; only the first " + MAX_FILE_BYTES
                + " are read.]";
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
