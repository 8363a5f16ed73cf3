package dev.dockyard.protocol;

/** A small script of goto/click/fill/scroll calls for the sandbox's browser (the browser plugin). */
public record BrowseInteractiveAction(String browserActions, SecurityRisk securityRisk, Double timeout)
        implements Action {

    public BrowseInteractiveAction {
        browserActions = browserActions == null ? "" : browserActions;
        securityRisk = securityRisk == null ? SecurityRisk.UNKNOWN : securityRisk;
    }

    @Override
    public ActionType type() {
        return ActionType.BROWSE_INTERACTIVE;
    }
}
