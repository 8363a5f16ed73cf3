package dev.dockyard.runtime;

import dev.dockyard.images.ExtraDependencies;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import java.io.StringReader;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How a runtime's structured settings are kept in its text columns (JSON, then sealed where
 * secret): the request's variables and its image's extra dependencies. Null stands for none.
 */
final class RuntimeSettingsJson {

    private RuntimeSettingsJson() {
    }

    static String environment(Map<String, String> environment) {
        if (environment.isEmpty()) {
            return null;
        }
        JsonObjectBuilder json = Json.createObjectBuilder();
        environment.forEach(json::add);
        return json.build().toString();
    }

    static Map<String, String> environment(String json) {
        if (json == null) {
            return Map.of();
        }
        Map<String, String> environment = new LinkedHashMap<>();
        read(json).forEach((k, v) -> environment.put(k, ((JsonString) v).getString()));
        return environment;
    }

    static String extraDependencies(ExtraDependencies extra) {
        if (extra.aptPackages().isEmpty() && extra.script().isEmpty()) {
            return null;
        }
        JsonArrayBuilder apt = Json.createArrayBuilder();
        extra.aptPackages().forEach(apt::add);
        return Json.createObjectBuilder().add("apt", apt).add("script", extra.script()).build().toString();
    }

    static ExtraDependencies extraDependencies(String json) {
        if (json == null) {
            return ExtraDependencies.NONE;
        }
        JsonObject extra = read(json);
        return new ExtraDependencies(extra.getJsonArray("apt").getValuesAs(JsonString::getString),
                extra.getString("script", ""));
    }

    private static JsonObject read(String json) {
        try (JsonReader reader = Json.createReader(new StringReader(json))) {
            return reader.readObject();
        }
    }
}
