package dev.dockyard.runtime;

import dev.dockyard.backend.SandboxIsolation;
import dev.dockyard.images.ExtraDependencies;
import dev.dockyard.jsonp.Jsonp;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import java.io.StringReader;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How a runtime's structured settings are kept in its text columns (JSON, then sealed where
 * secret): the request's variables, its image's extra dependencies and the program a runtime
 * of another image runs. Null stands for none.
 */
final class RuntimeSettingsJson {

    private RuntimeSettingsJson() {
    }

    /** A map of strings (a sandbox's environment, a runtime's metadata) as a JSON object; null for none. */
    static String strings(Map<String, String> values) {
        if (values.isEmpty()) {
            return null;
        }
        JsonObjectBuilder json = Jsonp.createObjectBuilder();
        values.forEach(json::add);
        return json.build().toString();
    }

    static Map<String, String> strings(String json) {
        if (json == null) {
            return Map.of();
        }
        Map<String, String> values = new LinkedHashMap<>();
        read(json).forEach((k, v) -> values.put(k, ((JsonString) v).getString()));
        return values;
    }

    static String extraDependencies(ExtraDependencies extra) {
        if (extra.aptPackages().isEmpty() && extra.script().isEmpty()) {
            return null;
        }
        JsonArrayBuilder apt = Jsonp.createArrayBuilder();
        extra.aptPackages().forEach(apt::add);
        return Jsonp.createObjectBuilder().add("apt", apt).add("script", extra.script()).build().toString();
    }

    static ExtraDependencies extraDependencies(String json) {
        if (json == null) {
            return ExtraDependencies.NONE;
        }
        JsonObject extra = read(json);
        return new ExtraDependencies(extra.getJsonArray("apt").getValuesAs(JsonString::getString),
                extra.getString("script", ""));
    }

    static String program(SandboxProgram program) {
        if (program == null) {
            return null;
        }
        JsonArrayBuilder command = Jsonp.createArrayBuilder();
        program.command().forEach(command::add);
        JsonObjectBuilder environment = Jsonp.createObjectBuilder();
        program.environment().forEach(environment::add);
        JsonObjectBuilder json = Jsonp.createObjectBuilder().add("command", command).add("environment", environment)
                .add("mainPort", program.mainPort());
        if (program.workingDir() != null) {
            json.add("workingDir", program.workingDir());
        }
        if (program.user() != null) {
            json.add("user", program.user());
        }
        if (program.fsGroup() != null) {
            json.add("fsGroup", program.fsGroup());
        }
        if (program.publicBase() != null) {
            json.add("publicBase", program.publicBase());
        }
        return json.build().toString();
    }

    static SandboxProgram program(String json) {
        if (json == null) {
            return null;
        }
        JsonObject program = read(json);
        Map<String, String> environment = new LinkedHashMap<>();
        program.getJsonObject("environment").forEach((k, v) -> environment.put(k, ((JsonString) v).getString()));
        return new SandboxProgram(program.getJsonArray("command").getValuesAs(JsonString::getString),
                program.getString("workingDir", null), environment, program.getString("user", null),
                program.containsKey("fsGroup") ? program.getJsonNumber("fsGroup").longValue() : null,
                program.getInt("mainPort"), program.getString("publicBase", null));
    }

    static String ports(Map<String, Integer> ports) {
        if (ports.isEmpty()) {
            return null;
        }
        JsonObjectBuilder json = Jsonp.createObjectBuilder();
        ports.forEach(json::add);
        return json.build().toString();
    }

    static Map<String, Integer> ports(String json) {
        if (json == null) {
            return Map.of();
        }
        Map<String, Integer> ports = new LinkedHashMap<>();
        read(json).forEach((k, v) -> ports.put(k, ((JsonNumber) v).intValue()));
        return ports;
    }

    private static JsonObject read(String json) {
        try (JsonReader reader = Jsonp.createReader(new StringReader(json))) {
            return reader.readObject();
        }
    }

    static String isolation(SandboxIsolation isolation) {
        if (isolation == null || isolation.isDefault()) {
            return null;
        }
        JsonObjectBuilder json = Jsonp.createObjectBuilder();
        if (isolation.runtimeClass() != null) {
            json.add("runtimeClass", isolation.runtimeClass());
        }
        if (isolation.gpus() != null) {
            JsonArrayBuilder ids = Jsonp.createArrayBuilder();
            isolation.gpus().deviceIds().forEach(ids::add);
            json.add("gpus", Jsonp.createObjectBuilder().add("count", isolation.gpus().count()).add("deviceIds", ids));
        }
        if (isolation.readOnlyRoot() != null) {
            json.add("readOnlyRoot", isolation.readOnlyRoot());
        }
        JsonArrayBuilder networks = Jsonp.createArrayBuilder();
        isolation.networks().forEach(networks::add);
        return json.add("networks", networks).build().toString();
    }

    static SandboxIsolation isolation(String json) {
        if (json == null) {
            return SandboxIsolation.DEFAULT;
        }
        JsonObject isolation = read(json);
        JsonObject gpus = isolation.getJsonObject("gpus");
        return new SandboxIsolation(isolation.getString("runtimeClass", null),
                gpus == null ? null : new SandboxIsolation.SandboxGpus(gpus.getInt("count"),
                        gpus.getJsonArray("deviceIds").getValuesAs(JsonString::getString)),
                isolation.getJsonArray("networks").getValuesAs(JsonString::getString),
                isolation.containsKey("readOnlyRoot") ? isolation.getBoolean("readOnlyRoot") : null);
    }
}
