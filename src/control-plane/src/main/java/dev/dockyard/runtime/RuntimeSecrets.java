package dev.dockyard.runtime;

import jakarta.enterprise.context.ApplicationScoped;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The secret values a runtime's sandbox holds, so that no status message, event or log line about
 * the runtime repeats one: a setup script or a crashing executor may print what was injected into
 * its environment, and such output is quoted in messages to explain a failure.
 *
 * <p>A runtime's own row gives its LLM key, session key and {@code sandbox.env} values; what
 * provisioning resolved besides (provider credentials, the git token) is remembered here, in memory,
 * while the runtime is being brought up and served. Values shorter than {@value #SHORTEST} characters
 * are not secrets worth the name and are left alone (redacting "1" would wreck every message).
 * Each value is also redacted in its URL-encoded and base64 forms.
 */
@ApplicationScoped
public class RuntimeSecrets {

    /** Values shorter than this are not redacted. */
    public static final int SHORTEST = 6;
    public static final String MASK = "[redacted]";
    private static final Pattern SECRET_NAME = Pattern.compile("(?i)(KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|PRIVATE)");

    private final Map<String, Set<String>> remembered = new ConcurrentHashMap<>();

    /** Remembers values pushed into a runtime's sandbox (until {@link #forget}). */
    public void remember(String runtimeId, Collection<String> values) {
        Set<String> known = remembered.computeIfAbsent(runtimeId, id -> ConcurrentHashMap.newKeySet());
        values.stream().filter(RuntimeSecrets::worthRedacting).forEach(known::add);
    }

    public void forget(String runtimeId) {
        remembered.remove(runtimeId);
    }

    /** {@code message} without any secret of the runtime: those of its row and those remembered. */
    public String redact(SandboxRuntime runtime, String message) {
        if (message == null || message.isEmpty()) {
            return message;
        }
        List<String> values = new ArrayList<>(remembered.getOrDefault(runtime.id(), Set.of()));
        values.add(runtime.sessionKey());
        values.add(runtime.llmApiKey());
        values.addAll(runtime.environment().values());
        values.add(runtime.serviceKey());
        runtime.program().ifPresent(p -> values.addAll(secretLooking(p.environment())));
        return redact(message, values);
    }

    /**
     * The values of a program's environment whose names say they are secrets (OpenHands passes
     * paths and settings there too, which redacting would only make unreadable).
     */
    public static List<String> secretLooking(Map<String, String> environment) {
        return environment.entrySet().stream().filter(e -> SECRET_NAME.matcher(e.getKey()).find())
                .map(Map.Entry::getValue).toList();
    }

    /** {@code message} without the secrets remembered for the runtime. */
    public String redact(String runtimeId, String message) {
        return redact(message, remembered.getOrDefault(runtimeId, Set.of()));
    }

    /** Replaces every occurrence of each value (and its URL-encoded and base64 forms), longest first. */
    public static String redact(String message, Collection<String> secrets) {
        if (message == null || message.isEmpty()) {
            return message;
        }
        List<String> forms = new ArrayList<>();
        for (String secret : secrets) {
            if (worthRedacting(secret)) {
                forms.add(secret);
                forms.add(URLEncoder.encode(secret, StandardCharsets.UTF_8));
                forms.add(Base64.getEncoder().withoutPadding().encodeToString(secret.getBytes(StandardCharsets.UTF_8)));
            }
        }
        // a longer form may contain a shorter one: replace it whole first
        forms.sort(Comparator.comparingInt(String::length).reversed());
        String redacted = message;
        for (String form : forms) {
            if (form.length() >= SHORTEST) {
                redacted = redacted.replace(form, MASK);
            }
        }
        return redacted;
    }

    private static boolean worthRedacting(String value) {
        return value != null && value.length() >= SHORTEST;
    }
}
