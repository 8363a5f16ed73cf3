package dev.dockyard.executor.plugins;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** OpenHands' strip_ansi (plugins/jupyter/execute_server.py), over all of a cell's text. */
class JupyterPluginTest {

    @Test
    void shouldStripColoursAsOpenHandsStripAnsiDoes() {
        assertEquals("Lorem ipsum", JupyterPlugin.stripAnsi("\u001b[33mLorem ipsum\u001b[0m"));
        assertEquals("Lorem dolor", JupyterPlugin.stripAnsi("\u001b[1m\u001b[46m\u001b[38;5;32mLorem dolor\u001b[0m"));
        // only SGR with one to three numbers: the rest stays, as there
        assertEquals("\u001b[mx\u001b[38;2;1;2;3my\u001b[2K", JupyterPlugin.stripAnsi(
                "\u001b[mx\u001b[38;2;1;2;3my\u001b[2K"));
    }
}
