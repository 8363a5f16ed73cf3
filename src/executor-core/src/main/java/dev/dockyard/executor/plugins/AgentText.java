package dev.dockyard.executor.plugins;

/**
 * The text of a browse observation as OpenHands' {@code openhands/runtime/browser/utils.py
 * get_agent_obs_text} writes it, character for character, around Dockyard's page text.
 *
 * <p>For {@code browse_interactive} OpenHands then prints BrowserGym's accessibility tree with
 * element ids ({@code bid}) to click by. Dockyard's browser actions address elements by CSS
 * selector or visible text instead, so the page's text follows in the webpage-content frame of
 * {@code browse}, not in an accessibility-tree frame that would promise bids.
 */
final class AgentText {

    static final String BEGIN_CONTENT = "============== BEGIN webpage content ==============\n";
    static final String END_CONTENT = "\n============== END webpage content ==============\n";

    private AgentText() {
    }

    static String forBrowse(String url, String pageText, String error) {
        StringBuilder text = new StringBuilder("[Current URL: ").append(url).append("]\n");
        if (!error.isEmpty()) {
            text.append("================ BEGIN error message ===============\n")
                    .append("The following error occurred when trying to visit the URL:\n")
                    .append(error).append('\n')
                    .append("================ END error message ===============\n");
        }
        return text.append(BEGIN_CONTENT).append(pageText).append(END_CONTENT).toString();
    }

    static String forInteraction(String url, String screenshotPath, String pageText, String error) {
        StringBuilder text = new StringBuilder("[Current URL: ").append(url).append("]\n")
                .append("[Focused element bid: ]\n");
        if (screenshotPath != null) {
            text.append("[Screenshot saved to: ").append(screenshotPath).append("]\n");
        }
        text.append('\n');
        if (!error.isEmpty()) {
            text.append("================ BEGIN error message ===============\n")
                    .append("The following error occurred when executing the last action:\n")
                    .append(error).append('\n')
                    .append("================ END error message ===============\n");
        } else {
            text.append("[Action executed successfully.]\n");
        }
        return text.append(BEGIN_CONTENT).append(pageText).append(END_CONTENT).toString();
    }
}
