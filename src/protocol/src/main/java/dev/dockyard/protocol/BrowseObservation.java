package dev.dockyard.protocol;

import java.util.List;

/**
 * A page as the sandbox's browser saw it after {@code browse} or {@code browse_interactive}
 * (OpenHands' BrowserOutputObservation): the text shown to the agent, the final URL, a PNG
 * screenshot as a data URL and where it was saved, the open pages and which one is active, and
 * whether the browsing failed (then {@code lastBrowserActionError} says why).
 *
 * <p>The members OpenHands fills from BrowserGym's accessibility tree and DOM ({@code axtree_object},
 * {@code dom_object}, {@code extra_element_properties}, {@code set_of_marks}, a focused element's
 * {@code bid}) have no Dockyard counterpart and are sent with OpenHands' defaults; so are
 * {@code goal_image_urls} (BrowserGym's evaluation goals) and {@code filter_visible_only}.
 */
public record BrowseObservation(String content, String url, String triggerByAction, String screenshot,
                                String screenshotPath, boolean error, List<String> openPagesUrls,
                                int activePageIndex, String focusedElementBid, String lastBrowserAction,
                                String lastBrowserActionError) implements Observation {

    public BrowseObservation {
        content = content == null ? "" : content;
        url = url == null ? "" : url;
        screenshot = screenshot == null ? "" : screenshot;
        openPagesUrls = openPagesUrls == null ? List.of() : List.copyOf(openPagesUrls);
        focusedElementBid = focusedElementBid == null ? "" : focusedElementBid;
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
