package dev.dockyard.agents;

/** A runtime's LLM configuration. The API key is a secret: never printed, sealed at rest. */
public record LlmSettings(String model, String baseUrl, String apiKey) {

    public static final LlmSettings NONE = new LlmSettings(null, null, null);

    /** These settings, with anything unset taken from {@code defaults}. */
    public LlmSettings over(LlmSettings defaults) {
        return new LlmSettings(model != null ? model : defaults.model, baseUrl != null ? baseUrl : defaults.baseUrl,
                apiKey != null ? apiKey : defaults.apiKey);
    }

    @Override
    public String toString() {
        return "LlmSettings[model=" + model + ", baseUrl=" + baseUrl + ", apiKey=" + (apiKey == null ? "none" : "***")
                + "]";
    }
}
