package dev.dockyard.executor.plugins;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The texts of openhands/runtime/browser/utils.py get_agent_obs_text, character for character. */
class AgentTextTest {

    @Test
    void shouldFrameAVisitedPageAsOpenHandsDoes() {
        assertEquals("[Current URL: http://localhost/]\n"
                + "============== BEGIN webpage content ==============\n"
                + "# Title"
                + "\n============== END webpage content ==============\n",
                AgentText.forBrowse("http://localhost/", "# Title", ""));
    }

    @Test
    void shouldPutTheVisitErrorBeforeTheContent() {
        assertEquals("[Current URL: http://localhost:1/]\n"
                + "================ BEGIN error message ===============\n"
                + "The following error occurred when trying to visit the URL:\n"
                + "boom\n"
                + "================ END error message ===============\n"
                + "============== BEGIN webpage content ==============\n"
                + "\n============== END webpage content ==============\n",
                AgentText.forBrowse("http://localhost:1/", "", "boom"));
    }

    @Test
    void shouldHeadAnInteractionAsOpenHandsDoes() {
        assertEquals("[Current URL: http://localhost/]\n"
                + "[Focused element bid: ]\n"
                + "[Screenshot saved to: /workspace/.browser_screenshots/s.png]\n"
                + "\n"
                + "[Action executed successfully.]\n"
                + "============== BEGIN webpage content ==============\n"
                + "text"
                + "\n============== END webpage content ==============\n",
                AgentText.forInteraction("http://localhost/", "/workspace/.browser_screenshots/s.png", "text", ""));
        assertEquals("[Current URL: ]\n[Focused element bid: ]\n\n"
                + "================ BEGIN error message ===============\n"
                + "The following error occurred when executing the last action:\n"
                + "no element\n"
                + "================ END error message ===============\n"
                + "============== BEGIN webpage content ==============\n"
                + "\n============== END webpage content ==============\n",
                AgentText.forInteraction("", null, "", "no element"));
    }
}
