package dev.dockyard.proxy;

import dev.dockyard.application.e2b.SandboxIds;
import dev.dockyard.application.remote.ProxyTarget;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.Base64;
import java.util.Optional;
import java.util.Set;

/**
 * E2B's envd traffic on the services' port: which sandbox a request names and whether it goes
 * through, as E2B's own proxy and envd decide it.
 *
 * <p>E2B's SDKs send every envd request to one origin ({@code E2B_SANDBOX_URL}) and name the sandbox
 * and port in headers ({@code E2b-Sandbox-Id}, {@code E2b-Sandbox-Port}), so no wildcard DNS is
 * needed; the sandbox's executor serves envd at the root of its port, the proxy under {@link #PREFIX}
 * (and at its root, but for {@code /health}). Only envd's public paths go
 * through ({@code /health}, {@code /files}, the process and filesystem services): the executor's own
 * protocol stays behind path mode. The order: a sandbox that is unknown, deleted or paused is a 502
 * in E2B's shape (the SDK's {@code isRunning()} reads that as "not running", and E2B's proxy answers
 * a paused sandbox's traffic the same way unless it resumes on traffic, which Dockyard does not);
 * then the access token ({@code X-Access-Token}, the runtime's public key, which the control API
 * hands out as {@code envdAccessToken}), or for {@code /files} without one a URL signature made with
 * it; {@code GET /health} needs neither; a sandbox being recovered (stopped while it ran, and being
 * started again) is a 503 with {@code Retry-After}; a sandbox still booting is a 409, as E2B's "still
 * transitioning". Any port but envd's is a 502 "port not open": a sandbox's own ports are reached
 * through path mode.
 */
public final class EnvdAdmission {

    public static final String SANDBOX_ID = "E2b-Sandbox-Id";
    public static final String SANDBOX_PORT = "E2b-Sandbox-Port";
    public static final String ACCESS_TOKEN = "X-Access-Token";
    /** The port E2B's SDKs name for envd. */
    public static final int ENVD_PORT = 49983;
    /**
     * Where envd is on the services' port ({@code E2B_SANDBOX_URL=http://host:9081/e2b}): not at
     * the root, where Liberty's own health application answers {@code /health} on every port, which
     * the SDK's {@code isRunning()} would read as the sandbox's. The root is served too, for
     * everything but {@code /health}.
     */
    public static final String PREFIX = "/e2b";

    private static final Set<String> SERVICES = Set.of("/process.Process/", "/filesystem.Filesystem/");

    private EnvdAdmission() {
    }

    /**
     * A URL signature's parts from the query ({@code path}, {@code username}, {@code signature},
     * {@code signature_expiration}), each null when absent.
     */
    public record Signature(String path, String username, String signature, String expiration) {

        static final Signature NONE = new Signature(null, null, null, null);

        public static Signature of(String rawQuery) {
            return new Signature(QueryString.value(rawQuery, "path").orElse(null),
                    QueryString.value(rawQuery, "username").orElse(null),
                    QueryString.value(rawQuery, "signature").orElse(null),
                    QueryString.value(rawQuery, "signature_expiration").orElse(null));
        }
    }

    /** The runtime a sandbox id names, or empty for an id that names none (answered as not found). */
    public static Optional<String> runtimeId(String sandboxId) {
        return SandboxIds.runtimeId(sandboxId == null ? null : sandboxId.trim());
    }

    /**
     * Whether a request that names no sandbox is one of E2B's signed file URLs
     * ({@code uploadUrl()}, {@code downloadUrl()}): {@code /files} at the root of the services' port
     * (the SDK drops any path of {@code E2B_SANDBOX_URL} there) with a {@code signature}.
     */
    public static boolean isSignedFileUrl(String path, String rawQuery) {
        return "/files".equals(path) && QueryString.value(rawQuery, "signature").isPresent();
    }

    /**
     * Whether a signature has the shape E2B's SDKs give one ({@code v1_} and 43 characters of
     * unpadded base64): a signed URL is looked for among every runtime's keys, so nothing else is.
     */
    public static boolean isWellFormed(Signature signature) {
        String s = signature.signature();
        return s != null && s.length() == 46 && s.startsWith("v1_");
    }

    /** The operation a file URL's signature names: {@code read} for a download, {@code write} for an upload. */
    public static String operation(String method) {
        return "GET".equals(method) ? "read" : "write";
    }

    /** envd's path of a request's path inside the application: {@link #PREFIX} taken off. */
    public static String envdPath(String path) {
        return path != null && path.startsWith(PREFIX + "/") ? path.substring(PREFIX.length()) : path;
    }

    /** The route of an envd request: the main service, envd's path. */
    public static ServiceRoute route(String runtimeId, String path) {
        return new ServiceRoute(runtimeId, ProxyTarget.MAIN, "", path == null || path.isEmpty() ? "/" : path);
    }

    /**
     * Whether the request goes through.
     *
     * @param found    the runtime the sandbox id names, if any (not the caller's to see: the token decides)
     * @param port     the {@code E2b-Sandbox-Port} header, or null
     * @param token    the {@code X-Access-Token} header, or null
     * @param rawQuery the query as sent, for a {@code /files} URL signature
     */
    public static Admission decide(Optional<ProxyTarget> found, String sandboxId, String port, String method,
                                   String path, String token, String rawQuery, Instant now) {
        if (found.isEmpty() || found.get().state() == ProxyTarget.State.PAUSED) {
            return new Admission.Refused(502, "The sandbox was not found");
        }
        if (port != null && !port.trim().equals(Integer.toString(ENVD_PORT))) {
            return new Admission.Refused(502, "The sandbox is running but port " + port.trim()
                    + " is not open to E2B's routing: reach a sandbox's own ports through its service URL");
        }
        if (!isEnvdPath(path)) {
            return new Admission.Refused(404, "Not an envd path: " + path);
        }
        ProxyTarget target = found.get();
        boolean health = path.equals("/health") && ("GET".equals(method) || "HEAD".equals(method));
        boolean files = path.equals("/files") && ("GET".equals(method) || "POST".equals(method));
        if (token != null && !token.isEmpty()) {
            if (!ProxyAuthentication.matches(token, target.publicKey())) {
                return new Admission.Refused(401, "unauthorized access, please provide a valid access token or "
                        + "method signing if supported");
            }
        } else if (files) {
            Optional<String> refusal = checkSignature(Signature.of(rawQuery), operation(method), target.publicKey(), now);
            if (refusal.isPresent()) {
                return new Admission.Refused(401, refusal.get());
            }
        } else if (!health) {
            return new Admission.Refused(401, "unauthorized access, please provide a valid access token or "
                    + "method signing if supported");
        }
        Optional<URI> service = target.service(ProxyTarget.MAIN);
        if (service.isEmpty()) {
            return new Admission.Refused(502, "The sandbox was not found");
        }
        if (target.state() == ProxyTarget.State.RECOVERING) {
            return Admission.recovering("The sandbox");
        }
        if (target.state() == ProxyTarget.State.NOT_READY) {
            return new Admission.Refused(409, "The sandbox is still transitioning. Try again in a moment.");
        }
        // the sandbox's server always gets the internal key: envd's checks were made here
        return new Admission.Admitted(target, service.get(), Optional.of(ProxyAuthentication.Source.HEADER));
    }

    /** envd's paths that E2B's proxy passes on; its internal ones ({@code /init}, ...) and the executor's stay behind. */
    static boolean isEnvdPath(String path) {
        // matched as sent, so no escape or dot segment may hide another path behind an envd one
        if (path == null || path.contains("%") || path.contains("/.")) {
            return false;
        }
        if (path.equals("/health") || path.equals("/files")) {
            return true;
        }
        for (String service : SERVICES) {
            if (path.startsWith(service) && path.length() > service.length()
                    && path.indexOf('/', service.length()) < 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * envd's check of a {@code /files} URL signature ({@code v1_} and the unpadded base64 of
     * SHA-256 over {@code path:operation:username:token[:expiration]}): empty when it holds, else why not.
     */
    public static Optional<String> checkSignature(Signature given, String operation, String token, Instant now) {
        if (given.signature() == null) {
            return Optional.of("missing signature query parameter");
        }
        Long expiration = null;
        if (given.expiration() != null) {
            try {
                expiration = Long.parseLong(given.expiration());
            } catch (NumberFormatException e) {
                return Optional.of("invalid signature expiration");
            }
        }
        String expected = signature(given.path() == null ? "" : given.path(), operation,
                given.username() == null ? "" : given.username(), token, expiration);
        if (!MessageDigest.isEqual(expected.getBytes(StandardCharsets.UTF_8),
                given.signature().getBytes(StandardCharsets.UTF_8))) {
            return Optional.of("invalid signature");
        }
        if (expiration != null && expiration < now.getEpochSecond()) {
            return Optional.of("signature is already expired");
        }
        return Optional.empty();
    }

    /** A URL signature as E2B's SDKs make one ({@code sandbox/signature.ts}). */
    static String signature(String path, String operation, String username, String token, Long expiration) {
        String raw = path + ":" + operation + ":" + username + ":" + token + (expiration == null ? "" : ":" + expiration);
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(raw.getBytes(StandardCharsets.UTF_8));
            return "v1_" + Base64.getEncoder().withoutPadding().encodeToString(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is always there", e);
        }
    }
}
