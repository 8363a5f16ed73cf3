package dev.dockyard.e2b;

import dev.dockyard.api.JsonFields;
import dev.dockyard.api.Problem;
import dev.dockyard.application.e2b.NewSandbox;
import dev.dockyard.application.e2b.Templates;
import dev.dockyard.backend.EgressPolicy;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads E2B's {@code NewSandbox} (v1) and {@code NewSandboxV2} bodies. What Dockyard honours:
 * {@code templateID} (default {@code base}), {@code timeout} (seconds, default 300, at least 1),
 * {@code metadata} and {@code envVars} (objects of strings), {@code allow_internet_access} (false:
 * no outbound connection), {@code autoPause} (paused at the end rather than killed),
 * {@code secure} (ignored: the sandbox always has an access token), {@code network.denyOut}
 * {@code ["0.0.0.0/0"]} (E2B's "all traffic", the same as no internet access) and what equals
 * E2B's defaults ({@code autoPauseMemory: true}, {@code autoResume.enabled: false},
 * {@code network.allowPublicTraffic: true}). Every other option is refused by name, 400, rather
 * than ignored: MCP, volumes, IAM tokens, egress proxies and rules, CIDR or host lists.
 */
final class NewSandboxReader {

    /** Every member of E2B's create bodies: those Dockyard cannot honour are refused one by one below. */
    static final Set<String> FIELDS = Set.of("templateID", "timeout", "metadata", "envVars", "allow_internet_access",
            "autoPause", "autoPauseMemory", "autoResume", "secure", "network", "mcp", "iam", "volumeMounts");
    static final Set<String> NETWORK_FIELDS = Set.of("allowOut", "denyOut", "allowPublicTraffic", "egressProxy",
            "rules", "maskRequestHost", "httpsPorts");
    /** E2B's timeout when the body names none. */
    static final int DEFAULT_TIMEOUT_SECONDS = 300;
    /** E2B's ALL_TRAFFIC: denying it is denying internet access. */
    static final String ALL_TRAFFIC = "0.0.0.0/0";
    /** The largest metadata as JSON: what the runtime's METADATA column holds. */
    static final int MAX_METADATA_BYTES = 8_000;

    private NewSandboxReader() {
    }

    static NewSandbox read(JsonObject body) {
        JsonObject b = body == null ? JsonValue.EMPTY_JSON_OBJECT : body;
        JsonFields.requireOnly(b, FIELDS, "");
        for (String unsupported : List.of("mcp", "iam", "volumeMounts")) {
            refuseIfGiven(b, unsupported, unsupported + " is not served by Dockyard's E2B API");
        }
        if (!JsonFields.bool(b, "autoPauseMemory", true, "autoPauseMemory")) {
            throw invalid("autoPauseMemory false (a pause without memory) is not served: Dockyard's pause keeps it");
        }
        if (JsonFields.bool(JsonFields.object(b, "autoResume", "autoResume"), "enabled", false, "autoResume.enabled")) {
            throw invalid("autoResume is not served: connect resumes a paused sandbox");
        }
        JsonFields.bool(b, "secure", true, "secure");
        String template = JsonFields.string(b, "templateID", Templates.BASE, "templateID");
        if (template.isBlank() || template.length() > 300) {
            throw invalid("templateID must be 1 to 300 characters");
        }
        int timeout = timeout(b);
        Map<String, String> metadata = JsonFields.strings(b, "metadata", "metadata", null, MAX_METADATA_BYTES);
        Map<String, String> environment = JsonFields.strings(b, "envVars", "envVars", JsonFields.VARIABLE_NAME,
                JsonFields.MAX_ENVIRONMENT_BYTES);
        boolean internet = JsonFields.bool(b, "allow_internet_access", true, "allow_internet_access");
        boolean deniedAll = deniesAllTraffic(JsonFields.object(b, "network", "network"));
        EgressPolicy egress = internet && !deniedAll ? null : new EgressPolicy(EgressPolicy.Mode.NONE, List.of());
        return new NewSandbox(template, timeout, metadata, environment, egress,
                JsonFields.bool(b, "autoPause", false, "autoPause"));
    }

    /** {@code timeout} in seconds: {@link #DEFAULT_TIMEOUT_SECONDS} when absent, else at least 1 (E2B's words). */
    static int timeout(JsonObject body) {
        int timeout = JsonFields.integer(body, "timeout", DEFAULT_TIMEOUT_SECONDS, "timeout");
        if (timeout <= 0) {
            throw invalid("Timeout must be greater than 0");
        }
        return timeout;
    }

    /**
     * Whether {@code network} denies all traffic ({@code denyOut: ["0.0.0.0/0"]}, nothing allowed);
     * a network option Dockyard's egress policies cannot express is refused by name.
     */
    private static boolean deniesAllTraffic(JsonObject network) {
        JsonFields.requireOnly(network, NETWORK_FIELDS, "network");
        for (String unsupported : List.of("egressProxy", "rules", "maskRequestHost", "httpsPorts")) {
            refuseIfGiven(network, unsupported, "network." + unsupported + " is not served by Dockyard's E2B API");
        }
        if (!JsonFields.bool(network, "allowPublicTraffic", true, "network.allowPublicTraffic")) {
            throw invalid("network.allowPublicTraffic false is not served: Dockyard's service proxy always asks "
                    + "for the sandbox's access token");
        }
        List<String> allowed = addresses(network, "allowOut");
        List<String> denied = addresses(network, "denyOut");
        if (!allowed.isEmpty()) {
            throw invalid("network.allowOut is not served: Dockyard's egress policies list ip:port destinations, "
                    + "not CIDRs or host names (deny all with allow_internet_access false)");
        }
        if (!denied.isEmpty() && !denied.equals(List.of(ALL_TRAFFIC))) {
            throw invalid("network.denyOut is served only as [\"" + ALL_TRAFFIC + "\"] (all traffic): Dockyard's "
                    + "egress policies allow, they do not deny single destinations");
        }
        return !denied.isEmpty();
    }

    private static List<String> addresses(JsonObject network, String key) {
        JsonValue value = network.get(key);
        if (value == null || value.getValueType() == JsonValue.ValueType.NULL) {
            return List.of();
        }
        if (!(value instanceof JsonArray array) || !array.stream().allMatch(JsonString.class::isInstance)) {
            throw invalid("network." + key + " must be a list of strings");
        }
        return array.getValuesAs(JsonString.class).stream().map(JsonString::getString).toList();
    }

    /** A 400 when {@code key} is there with a value that asks for something (null, false, {} and [] ask nothing). */
    private static void refuseIfGiven(JsonObject body, String key, String why) {
        JsonValue value = body.get(key);
        boolean asks = value != null && switch (value.getValueType()) {
            case NULL, FALSE -> false;
            case OBJECT -> !value.asJsonObject().isEmpty();
            case ARRAY -> !value.asJsonArray().isEmpty();
            default -> true;
        };
        if (asks) {
            throw invalid(why);
        }
    }

    static Problem.ProblemException invalid(String detail) {
        return Problem.of(Problem.Kind.VALIDATION, detail).toException();
    }
}
