package dev.dockyard.credentials;

import dev.dockyard.config.DockyardConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.Set;

/**
 * Where Dockyard may send a user's refresh token. A refresh token is a long-lived secret, and the
 * control plane sits inside the operator's network where a user-chosen URL would let any user make
 * it POST to internal services. So by default an endpoint must be https on a host that resolves to
 * public addresses only; an admin lists in {@code dockyard.credentials.allowed-token-hosts} the
 * hosts exempt from both rules (an identity provider on the private network, a test's own endpoint
 * on 127.0.0.1). Checked when a credential is stored and again before every refresh, so that
 * narrowing the list takes effect for credentials stored earlier.
 */
@ApplicationScoped
public class TokenEndpointPolicy {

    private final Set<String> allowedHosts;

    @Inject
    public TokenEndpointPolicy(DockyardConfig config) {
        this(config.allowedTokenHosts());
    }

    public TokenEndpointPolicy(Set<String> allowedHosts) {
        this.allowedHosts = Set.copyOf(allowedHosts);
    }

    protected TokenEndpointPolicy() {
        this(Set.of()); // CDI proxy
    }

    /**
     * The endpoint as a URI when refresh tokens may be sent there.
     *
     * @throws CredentialException saying why not (never echoing user info from the URL)
     */
    public URI check(String endpoint) {
        URI uri;
        try {
            uri = new URI(endpoint);
        } catch (URISyntaxException | NullPointerException e) {
            throw new CredentialException("tokenEndpoint must be an https URL");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        String host = uri.getHost() == null ? null : uri.getHost().toLowerCase(Locale.ROOT);
        if (host == null || !(scheme.equals("https") || scheme.equals("http"))) {
            throw new CredentialException("tokenEndpoint must be an https URL");
        }
        if (uri.getRawUserInfo() != null) {
            throw new CredentialException("tokenEndpoint must not carry credentials in its URL");
        }
        if (allowedHosts.contains(host)) {
            return uri;
        }
        if (scheme.equals("http")) {
            throw new CredentialException("tokenEndpoint must use https: plain http is allowed only for hosts an "
                    + "admin lists in dockyard.credentials.allowed-token-hosts, and " + host + " is not one");
        }
        InetAddress[] addresses;
        try {
            addresses = InetAddress.getAllByName(host);
        } catch (UnknownHostException e) {
            throw new CredentialException("tokenEndpoint host " + host + " does not resolve");
        }
        for (InetAddress address : addresses) {
            if (internal(address)) {
                throw new CredentialException("tokenEndpoint host " + host + " is on a private or local network: "
                        + "allowed only when an admin lists it in dockyard.credentials.allowed-token-hosts");
            }
        }
        return uri;
    }

    private static boolean internal(InetAddress address) {
        byte[] raw = address.getAddress();
        boolean uniqueLocalV6 = raw.length == 16 && (raw[0] & 0xfe) == 0xfc;
        boolean sharedV4 = raw.length == 4 && (raw[0] & 0xff) == 100 && (raw[1] & 0xc0) == 64; // 100.64/10
        return address.isAnyLocalAddress() || address.isLoopbackAddress() || address.isLinkLocalAddress()
                || address.isSiteLocalAddress() || address.isMulticastAddress() || uniqueLocalV6 || sharedV4;
    }
}
