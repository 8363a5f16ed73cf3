package dev.dockyard.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.dockyard.config.ServiceUrls.Mode;
import org.junit.jupiter.api.Test;

class ServiceUrlsTest {

    static final String RID = "rt-0123456789abcdef";

    @Test
    void shouldPutPathModeUrlsOnTheServicesPortOfTheHostTheClientUsed() {
        String base = ServiceUrls.publicBase(Mode.PATH, null, "http", "127.0.0.1", 9081);
        assertEquals("http://127.0.0.1:9081", base);
        assertEquals("http://127.0.0.1:9081/" + RID, ServiceUrls.runtimeUrl(base, RID));
        assertEquals("http://127.0.0.1:9081/" + RID + "/work-1", ServiceUrls.serviceUrl(base, RID, "work-1"));
        assertEquals("http://[::1]:9081", ServiceUrls.publicBase(Mode.PATH, " ", "http", "[::1]", 9081));
    }

    @Test
    void shouldGiveEveryRuntimeAndServiceAHostOfItsOwnInSubdomainMode() {
        String base = ServiceUrls.publicBase(Mode.SUBDOMAIN, null, "http", "localhost", 9081);
        assertEquals("http://{runtime}.localhost:9081", base);
        assertEquals("http://" + RID + ".localhost:9081", ServiceUrls.runtimeUrl(base, RID));
        assertEquals("http://vscode-" + RID + ".localhost:9081", ServiceUrls.serviceUrl(base, RID, "vscode"));
        assertEquals("https://work-2-" + RID + ".sandboxes.example.com", ServiceUrls.serviceUrl(
                ServiceUrls.publicBase(Mode.SUBDOMAIN, "https://sandboxes.example.com/", "http", "x", 1), RID, "work-2"));
    }

    @Test
    void shouldNeverPutAHostUnderAnAddress() {
        assertEquals("http://{runtime}.localhost:9081", ServiceUrls.publicBase(Mode.SUBDOMAIN, null, "http", "127.0.0.1", 9081));
        assertEquals("http://{runtime}.localhost:9081", ServiceUrls.publicBase(Mode.SUBDOMAIN, null, "http", "[::1]", 9081));
        assertEquals("http://10.1.2.3:9081", ServiceUrls.publicBase(Mode.SUBDOMAIN, null, "http", "10.1.2.3", 9081));
        assertEquals("http://[fd00::1]:9081", ServiceUrls.publicBase(Mode.SUBDOMAIN, null, "http", "[fd00::1]", 9081));
    }

    @Test
    void shouldRefuseAPublicUrlThatCannotBeOne() {
        for (String bad : new String[] {"sandboxes.example.com", "ftp://x.example", "http://", "http://x/?a=1", "::"}) {
            assertThrows(IllegalStateException.class, () -> ServiceUrls.publicBase(Mode.PATH, bad, "http", "h", 1), bad);
        }
        assertThrows(IllegalStateException.class,
                () -> ServiceUrls.publicBase(Mode.SUBDOMAIN, "https://example.com/sb", "http", "h", 1));
        assertThrows(IllegalStateException.class,
                () -> ServiceUrls.publicBase(Mode.SUBDOMAIN, "http://10.0.0.5:9081", "http", "h", 1));
        assertEquals("https://example.com/sb", ServiceUrls.publicBase(Mode.PATH, "https://example.com/sb/", "http", "h", 1));
    }

    @Test
    void shouldPreferTheConfiguredPublicUrl() {
        assertEquals("https://sandboxes.example.com",
                ServiceUrls.publicBase(Mode.PATH, "https://sandboxes.example.com//", "http", "127.0.0.1", 9081));
    }

    @Test
    void shouldKnowTheModesByName() {
        assertEquals(Mode.PATH, Mode.of(null));
        assertEquals(Mode.PATH, Mode.of(" Path "));
        assertEquals(Mode.SUBDOMAIN, Mode.of("subdomain"));
        assertThrows(IllegalArgumentException.class, () -> Mode.of("host"));
    }
}
