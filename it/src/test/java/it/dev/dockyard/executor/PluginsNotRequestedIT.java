package it.dev.dockyard.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.support.Sandbox;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.Test;

/** A sandbox started without plugins runs none of their processes and says what an action needs. */
class PluginsNotRequestedIT extends SandboxTest {

    @Test
    void shouldStartNoPluginProcessAndNameThePluginAnActionNeeds() {
        assertEquals("0", sandbox.run("ps -eo args | grep -c '[i]pykernel\\|[i]python-bridge'")
                .getString("content").strip());
        JsonObject refused = sandbox.execute(Sandbox.action("run_ipython", Sandbox.args().add("code", "1")));
        assertEquals("error", refused.getString("observation"));
        assertTrue(refused.getString("content").contains("needs the jupyter plugin"), refused.toString());
    }
}
