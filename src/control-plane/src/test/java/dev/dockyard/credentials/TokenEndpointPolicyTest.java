package dev.dockyard.credentials;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;

/** Where refresh tokens may go. Only address literals here: checking them resolves no name. */
class TokenEndpointPolicyTest {

    private final TokenEndpointPolicy strict = new TokenEndpointPolicy(Set.of());
    private final TokenEndpointPolicy allowing = new TokenEndpointPolicy(Set.of("127.0.0.1", "10.1.2.3"));

    private static String refusal(TokenEndpointPolicy policy, String endpoint) {
        return assertThrows(CredentialException.class, () -> policy.check(endpoint)).getMessage();
    }

    @Test
    void shouldAcceptHttpsOnAPublicAddress() {
        assertEquals("203.0.113.7", strict.check("https://203.0.113.7/oauth/token").getHost());
    }

    @Test
    void shouldRefusePlainHttpUnlessAnAdminAllowsTheHost() {
        assertTrue(refusal(strict, "http://203.0.113.7/token").contains("must use https"));
        assertTrue(refusal(strict, "http://127.0.0.1:8080/token").contains("dockyard.credentials.allowed-token-hosts"));
        assertEquals(8080, allowing.check("http://127.0.0.1:8080/token").getPort());
    }

    @Test
    void shouldRefuseInternalAddressesEvenOverHttps() {
        for (String endpoint : new String[] {"https://127.0.0.1/t", "https://10.0.0.5/t", "https://192.168.1.1/t",
            "https://172.16.0.1/t", "https://169.254.169.254/latest", "https://[::1]/t", "https://[fd00::1]/t",
            "https://100.64.0.1/t", "https://0.0.0.0/t"}) {
            assertTrue(refusal(strict, endpoint).contains("private or local network"), endpoint);
        }
        assertEquals("10.1.2.3", allowing.check("https://10.1.2.3/t").getHost());
    }

    @Test
    void shouldRefuseWhatIsNotAnHttpUrlOrCarriesCredentials() {
        for (String endpoint : new String[] {"ftp://203.0.113.7/t", "file:///etc/passwd", "not a url", "/token",
            "https:///token"}) {
            assertTrue(refusal(strict, endpoint).contains("https URL"), endpoint);
        }
        String refused = refusal(strict, "https://user:hunter22@203.0.113.7/t");
        assertTrue(refused.contains("credentials in its URL") && !refused.contains("hunter22"), refused);
    }
}
