package dev.dockyard.executor.embedded;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** Where the embedded server listens: Liberty's server.xml variables, read the same way. */
class EmbeddedExecutorTest {

    @Test
    void shouldListenOnEveryInterfaceUnlessAHostIsNamed() {
        // null: the wildcard address, IPv6 and IPv4, as Liberty's "*"
        assertNull(EmbeddedExecutor.listenHost(null));
        assertNull(EmbeddedExecutor.listenHost("*"));
        assertNull(EmbeddedExecutor.listenHost(" "));
        assertEquals("127.0.0.1", EmbeddedExecutor.listenHost(" 127.0.0.1"));
    }

    @Test
    void shouldTakePort8000UnlessAValidPortIsNamed() {
        assertEquals(8000, EmbeddedExecutor.listenPort(null));
        assertEquals(8000, EmbeddedExecutor.listenPort(""));
        assertEquals(40123, EmbeddedExecutor.listenPort(" 40123 "));
        assertThrows(IllegalArgumentException.class, () -> EmbeddedExecutor.listenPort("0"));
        assertThrows(IllegalArgumentException.class, () -> EmbeddedExecutor.listenPort("65536"));
        assertThrows(IllegalArgumentException.class, () -> EmbeddedExecutor.listenPort("eighty"));
    }
}
