package dev.dockyard.protocol;

/** Opens a URL in the sandbox's headless browser (the browser plugin). */
public record BrowseUrlAction(String url, SecurityRisk securityRisk, Double timeout) implements Action {

    public BrowseUrlAction {
        securityRisk = securityRisk == null ? SecurityRisk.UNKNOWN : securityRisk;
    }

    @Override
    public ActionType type() {
        return ActionType.BROWSE;
    }
}
