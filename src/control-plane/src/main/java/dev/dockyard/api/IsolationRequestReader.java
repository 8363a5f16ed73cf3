package dev.dockyard.api;

import dev.dockyard.backend.SandboxIsolation;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * A request's {@code sandbox.runtimeClass}, {@code sandbox.gpus}, {@code sandbox.networks} and
 * {@code sandbox.readOnlyRoot} (API.md's "Extensions to the contracts"), checked here once: a known
 * runtime class; a boolean read-only root (absent: the node's default); GPUs as a
 * count, {@code "all"} or device ids; only networks an admin allows
 * ({@code dockyard.sandbox.allowed-networks}), and never the host's network stack, another
 * container's or none, whatever is allowed. Whether the chosen node can give them is the node's
 * to say ({@code BackendNodes#requireIsolation}).
 */
final class IsolationRequestReader {

    static final int MAX_GPUS = 64;
    static final int MAX_NETWORKS = 8;
    private static final Pattern DEVICE_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9:._-]{0,63}");
    private static final Pattern NETWORK = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,127}");
    /** Docker's network modes that are not networks: sharing the host's or a container's stack, or none. */
    private static final Set<String> NEVER = Set.of("host", "none", "default");

    private IsolationRequestReader() {
    }

    static SandboxIsolation read(JsonObject sandbox, Set<String> allowedNetworks) {
        String runtimeClass = JsonFields.string(sandbox, "runtimeClass", null, "sandbox.runtimeClass");
        if (runtimeClass != null && !SandboxIsolation.RUNTIME_CLASSES.contains(runtimeClass)) {
            throw invalid("sandbox.runtimeClass '" + runtimeClass + "' is not one of " + SandboxIsolation.RUNTIME_CLASSES);
        }
        Boolean readOnlyRoot = sandbox.get("readOnlyRoot") == null
                || sandbox.get("readOnlyRoot").getValueType() == JsonValue.ValueType.NULL ? null
                : JsonFields.bool(sandbox, "readOnlyRoot", true, "sandbox.readOnlyRoot");
        return new SandboxIsolation(runtimeClass, gpus(sandbox.get("gpus")), networks(sandbox.get("networks"),
                allowedNetworks), readOnlyRoot);
    }

    private static SandboxIsolation.SandboxGpus gpus(JsonValue value) {
        if (value == null || value.getValueType() == JsonValue.ValueType.NULL) {
            return null;
        }
        String shape = "sandbox.gpus must be a count (1 to " + MAX_GPUS + "), \"all\", or an array of device ids";
        if (value instanceof JsonNumber n) {
            if (!n.isIntegral() || n.longValue() < 1 || n.longValue() > MAX_GPUS) {
                throw invalid(shape);
            }
            return new SandboxIsolation.SandboxGpus(n.intValue(), List.of());
        }
        if (value instanceof JsonString s) {
            if (!s.getString().equals("all")) {
                throw invalid(shape);
            }
            return new SandboxIsolation.SandboxGpus(-1, List.of());
        }
        if (value.getValueType() != JsonValue.ValueType.ARRAY || value.asJsonArray().isEmpty()
                || value.asJsonArray().size() > MAX_GPUS) {
            throw invalid(shape);
        }
        Set<String> ids = new LinkedHashSet<>();
        for (JsonValue id : value.asJsonArray()) {
            if (!(id instanceof JsonString s) || !DEVICE_ID.matcher(s.getString()).matches()) {
                throw invalid(shape + " (letters, digits, ':', '.', '_' and '-')");
            }
            ids.add(s.getString());
        }
        return new SandboxIsolation.SandboxGpus(0, List.copyOf(ids));
    }

    private static List<String> networks(JsonValue value, Set<String> allowed) {
        if (value == null || value.getValueType() == JsonValue.ValueType.NULL) {
            return List.of();
        }
        if (value.getValueType() != JsonValue.ValueType.ARRAY || value.asJsonArray().size() > MAX_NETWORKS) {
            throw invalid("sandbox.networks must be an array of at most " + MAX_NETWORKS + " network names");
        }
        Set<String> names = new LinkedHashSet<>();
        for (JsonValue v : value.asJsonArray()) {
            if (!(v instanceof JsonString s)) {
                throw invalid("sandbox.networks must be an array of network names");
            }
            String name = s.getString();
            if (NEVER.contains(name) || name.startsWith("container:")) {
                throw invalid("sandbox.networks: '" + name + "' is never allowed: a sandbox does not share the "
                        + "host's network stack or another container's");
            }
            if (!NETWORK.matcher(name).matches() || !allowed.contains(name)) {
                throw invalid("sandbox.networks: '" + printable(name) + "' is not a network an admin allows; allowed: "
                        + new TreeSet<>(allowed));
            }
            names.add(name);
        }
        return new ArrayList<>(names);
    }

    /** A name quoted back without control characters or an unbounded length. */
    private static String printable(String name) {
        String bounded = name.length() > 128 ? name.substring(0, 128) + "…" : name;
        return bounded.replaceAll("\\p{Cntrl}", "?");
    }

    private static Problem.ProblemException invalid(String detail) {
        return Problem.of(Problem.Kind.VALIDATION, detail).toException();
    }
}
