package dev.dockyard.protocol;

/**
 * A page as the sandbox's browser saw it after {@code browse} or {@code browse_interactive}
 * (OpenHands' BrowserOutputObservation): its text as readable markdown-like content, the final
 * URL, a PNG screenshot as a data URL, and whether the browsing failed (then content says why).
 */
public record BrowseObservation(String content, String url, String triggerByAction, String screenshot, boolean error,
                                String lastBrowserAction, String lastBrowserActionError) implements Observation {

    public BrowseObservation {
        content = content == null ? "" : content;
        url = url == null ? "" : url;
        screenshot = screenshot == null ? "" : screenshot;
        lastBrowserAction = lastBrowserAction == null ? "" : lastBrowserAction;
        lastBrowserActionError = lastBrowserActionError == null ? "" : lastBrowserActionError;
    }

    @Override
    public String type() {
        return "browse";
    }

    @Override
    public String message() {
        return "Visited " + url;
    }
}
