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
        assertEquals("93.184.215.14", strict.check("https://93.184.215.14/oauth/token").getHost());
        assertEquals("[2606:2800:21f:cb07:6820:80da:af6b:8b2c]",
                strict.check("https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/t").getHost());
    }

    @Test
    void shouldRefusePlainHttpUnlessAnAdminAllowsTheHost() {
        assertTrue(refusal(strict, "http://93.184.215.14/token").contains("must use https"));
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
    void shouldRefuseReservedBlocksAndIpv4CarriedInIpv6() {
        for (String endpoint : new String[] {
            // IPv6 forms that carry an internal IPv4 address: IPv4-compatible, IPv4-mapped, NAT64, 6to4
            "https://[::127.0.0.1]/t", "https://[::10.0.0.1]/t", "https://[::169.254.169.254]/t",
            "https://[::ffff:127.0.0.1]/t", "https://[::ffff:a9fe:a9fe]/t",
            "https://[64:ff9b::127.0.0.1]/t", "https://[64:ff9b::a9fe:a9fe]/t", "https://[64:ff9b::10.1.2.3]/t",
            "https://[2002:7f00:1::]/t", "https://[2002:a9fe:a9fe::1]/t", "https://[2002:c0a8:0101::]/t",
            // IPv6 blocks that are no public host
            "https://[64:ff9b:1::8.8.8.8]/t", "https://[2001:db8::1]/t", "https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/t",
            "https://[fe80::1]/t", "https://[ff02::1]/t", "https://[::]/t", "https://[100::1]/t",
            // IPv4 special-purpose blocks
            "https://192.0.2.10/t", "https://198.51.100.7/t", "https://203.0.113.7/t", "https://198.18.0.1/t",
            "https://198.19.255.254/t", "https://240.0.0.1/t", "https://255.255.255.255/t", "https://0.1.2.3/t",
            "https://192.0.0.170/t", "https://224.0.0.1/t", "https://192.88.99.1/t"}) {
            assertTrue(refusal(strict, endpoint).contains("private or local network"), endpoint);
        }
        // the same forms carrying a public IPv4 address are that address
        for (String endpoint : new String[] {"https://[64:ff9b::93.184.215.14]/t", "https://[2002:5db8:d70e::1]/t",
            "https://[::93.184.215.14]/t", "https://198.20.0.1/t", "https://203.0.114.1/t", "https://1.0.0.1/t"}) {
            strict.check(endpoint);
        }
    }

    @Test
    void shouldPinTheAddressTheCheckJudged() {
        TokenEndpointPolicy.Endpoint endpoint = strict.resolve("https://93.184.215.14:8443/t");
        assertEquals("93.184.215.14", endpoint.address().getHostAddress());
        assertEquals(8443, endpoint.uri().getPort());
        assertEquals("10.1.2.3", allowing.resolve("https://10.1.2.3/t").address().getHostAddress());
    }

    @Test
    void shouldRefuseWhatIsNotAnHttpUrlOrCarriesCredentials() {
        for (String endpoint : new String[] {"ftp://93.184.215.14/t", "file:///etc/passwd", "not a url", "/token",
            "https:///token"}) {
            assertTrue(refusal(strict, endpoint).contains("https URL"), endpoint);
        }
        String refused = refusal(strict, "https://user:hunter22@93.184.215.14/t");
        assertTrue(refused.contains("credentials in its URL") && !refused.contains("hunter22"), refused);
    }
}
