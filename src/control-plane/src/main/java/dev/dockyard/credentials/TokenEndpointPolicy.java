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
     * An endpoint refresh tokens may be sent to, and the address it was judged by: the call
     * connects to that address and no other, so a name that resolves to a public address for the
     * check and to an internal one for the connection (DNS rebinding) reaches nothing internal.
     */
    public record Endpoint(URI uri, InetAddress address) {
    }

    /**
     * The endpoint as a URI when refresh tokens may be sent there.
     *
     * @throws CredentialException saying why not (never echoing user info from the URL)
     */
    public URI check(String endpoint) {
        return resolve(endpoint).uri();
    }

    /**
     * The endpoint and the address to connect to when refresh tokens may be sent there: every
     * address the host resolves to must be public, unless an admin allows the host.
     *
     * @throws CredentialException saying why not (never echoing user info from the URL)
     */
    public Endpoint resolve(String endpoint) {
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
        boolean allowed = allowedHosts.contains(host);
        if (!allowed && scheme.equals("http")) {
            throw new CredentialException("tokenEndpoint must use https: plain http is allowed only for hosts an "
                    + "admin lists in dockyard.credentials.allowed-token-hosts, and " + host + " is not one");
        }
        InetAddress[] addresses;
        try {
            addresses = InetAddress.getAllByName(host);
        } catch (UnknownHostException e) {
            throw new CredentialException("tokenEndpoint host " + host + " does not resolve");
        }
        if (!allowed) {
            for (InetAddress address : addresses) {
                if (PublicAddresses.internal(address)) {
                    throw new CredentialException("tokenEndpoint host " + host + " is on a private or local network: "
                            + "allowed only when an admin lists it in dockyard.credentials.allowed-token-hosts");
                }
            }
        }
        return new Endpoint(uri, addresses[0]);
    }
}
