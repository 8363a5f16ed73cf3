package dev.dockyard.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;
import org.junit.jupiter.api.Test;

/** {@code dockyard.node.<name>.executor-server} as MP Config gives it, and the names it takes. */
class ExecutorServerTest {

    private static Config config(Map<String, String> values) {
        return (Config) Proxy.newProxyInstance(Config.class.getClassLoader(), new Class<?>[] {Config.class},
                (proxy, method, args) -> {
                    if (!method.getName().equals("getOptionalValue")) {
                        throw new UnsupportedOperationException(method.getName());
                    }
                    return Optional.ofNullable(values.get((String) args[0]));
                });
    }

    @Test
    void shouldStartEmbeddedOnANodeThatNamesNoServer() {
        assertEquals(ExecutorServer.EMBEDDED, ExecutorServer.of(config(Map.of()), "n1"));
        assertEquals(ExecutorServer.EMBEDDED, ExecutorServer.of(config(Map.of("dockyard.node.n1.executor-server",
                "  ")), "n1"));
        assertEquals(ExecutorServer.EMBEDDED, ExecutorServer.DEFAULT);
    }

    @Test
    void shouldReadEachNodesOwnSetting() {
        Config config = config(Map.of("dockyard.node.n1.executor-server", "liberty",
                "dockyard.node.n2.executor-server", " embedded "));
        assertEquals(ExecutorServer.LIBERTY, ExecutorServer.of(config, "n1"));
        assertEquals(ExecutorServer.EMBEDDED, ExecutorServer.of(config, "n2"));
        assertEquals(ExecutorServer.EMBEDDED, ExecutorServer.of(config, "n3"));
    }

    @Test
    void shouldFailTheNodesConfigurationNamingTheSettingAndTheAllowedValues() {
        for (String wrong : List.of("tomcat", "Liberty", "EMBEDDED")) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> ExecutorServer.of(
                    config(Map.of("dockyard.node.n1.executor-server", wrong)), "n1"));
            assertEquals("dockyard.node.n1.executor-server: '" + wrong + "' is not one of [embedded, liberty]",
                    e.getMessage());
        }
    }

    @Test
    void shouldNameEachServerInLowerCaseAsTheStartScriptReadsIt() {
        assertEquals(List.of("embedded", "liberty"), ExecutorServer.NAMES);
        assertEquals("DOCKYARD_EXECUTOR_SERVER", ExecutorServer.VARIABLE);
        assertEquals(Optional.of(ExecutorServer.LIBERTY), ExecutorServer.named("liberty"));
        assertTrue(ExecutorServer.named("LIBERTY").isEmpty());
        assertTrue(ExecutorServer.named(null).isEmpty());
    }
}
