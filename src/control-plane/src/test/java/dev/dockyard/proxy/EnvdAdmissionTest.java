package dev.dockyard.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.application.remote.ProxyTarget;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class EnvdAdmissionTest {

    static final String SANDBOX = "rt0123456789abcdef";
    static final URI MAIN = URI.create("http://127.0.0.1:40001");
    static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");

    static Optional<ProxyTarget> target(ProxyTarget.State state) {
        return Optional.of(new ProxyTarget("rt-0123456789abcdef", "u1", state, "PUBLIC", "INTERNAL", Map.of("main", MAIN)));
    }

    static Admission decide(Optional<ProxyTarget> target, String method, String path, String token, String query) {
        return EnvdAdmission.decide(target, SANDBOX, "49983", method, path, token, query, NOW);
    }

    static void assertRefused(int status, Admission admission) {
        assertEquals(status, assertInstanceOf(Admission.Refused.class, admission).status(), admission.toString());
    }

    @Test
    void shouldNameTheRuntimeBySandboxIdAndNothingElse() {
        assertEquals(Optional.of("rt-0123456789abcdef"), EnvdAdmission.runtimeId(SANDBOX));
        assertEquals(Optional.empty(), EnvdAdmission.runtimeId("rt-0123456789abcdef"));
        assertEquals(Optional.empty(), EnvdAdmission.runtimeId("RT0123456789ABCDEF"));
        assertEquals(Optional.empty(), EnvdAdmission.runtimeId(null));
        assertEquals("/health", EnvdAdmission.envdPath("/e2b/health"));
        assertEquals("/process.Process/Start", EnvdAdmission.envdPath("/e2b/process.Process/Start"));
        assertEquals("/files", EnvdAdmission.envdPath("/files"));
        assertEquals("/e2bx/health", EnvdAdmission.envdPath("/e2bx/health"));
        ServiceRoute route = EnvdAdmission.route("rt-0123456789abcdef", "/process.Process/Start");
        assertEquals("/process.Process/Start", route.forwardPath());
        assertEquals(ProxyTarget.MAIN, route.service());
    }

    @Test
    void shouldAdmitTheTokenHolderAndSendTheInternalKeyOn() {
        Admission.Admitted a = assertInstanceOf(Admission.Admitted.class,
                decide(target(ProxyTarget.State.READY), "POST", "/process.Process/Start", "PUBLIC", null));
        assertEquals(MAIN, a.service());
        assertTrue(a.authenticated(), "the sandbox's server gets the internal key");
    }

    @Test
    void shouldAnswerUnknownDeletedAndPausedSandboxesAs502SoTheSdkSeesThemNotRunning() {
        assertRefused(502, decide(Optional.empty(), "GET", "/health", null, null));
        assertRefused(502, decide(target(ProxyTarget.State.PAUSED), "POST", "/process.Process/List", "PUBLIC", null));
        // before the token: whether a sandbox exists is no secret in E2B either (the id is random)
        assertRefused(502, decide(Optional.empty(), "POST", "/process.Process/List", "wrong", null));
    }

    @Test
    void shouldRefuseAWrongOrMissingTokenExceptOnHealth() {
        assertRefused(401, decide(target(ProxyTarget.State.READY), "POST", "/process.Process/Start", "wrong", null));
        assertRefused(401, decide(target(ProxyTarget.State.READY), "POST", "/filesystem.Filesystem/Stat", null, null));
        assertRefused(401, decide(target(ProxyTarget.State.READY), "POST", "/process.Process/Start", "INTERNAL", null));
        assertInstanceOf(Admission.Admitted.class, decide(target(ProxyTarget.State.READY), "GET", "/health", null, null));
        // a wrong token is refused even where a signature would do
        assertRefused(401, decide(target(ProxyTarget.State.READY), "GET", "/files", "wrong", "path=%2Fa"));
    }

    @Test
    void shouldPassOnlyEnvdsPublicPaths() {
        for (String path : new String[] {"/execute_action", "/upload_file", "/init", "/configure", "/",
                "/process.Process/", "/process.Process/Start/x", "/files/compose", "/processX.Process/Start",
                "/process.Process/..%2F..%2Fexecute_action", "/process.Process/%53tart", "/filesystem.Filesystem/.."}) {
            assertRefused(404, decide(target(ProxyTarget.State.READY), "POST", path, "PUBLIC", null));
        }
    }

    @Test
    void shouldAskToRetryInE2bsShapeWhileTheSandboxIsBeingRecoveredAfterTheToken() {
        assertRefused(401, decide(target(ProxyTarget.State.RECOVERING), "POST", "/process.Process/Start", "WRONG", null));
        Admission.Refused refused = assertInstanceOf(Admission.Refused.class,
                decide(target(ProxyTarget.State.RECOVERING), "POST", "/process.Process/Start", "PUBLIC", null));
        assertEquals(503, refused.status());
        assertEquals(2, refused.retryAfterSeconds());
    }

    @Test
    void shouldSayABootingSandboxIsStillTransitioning() {
        assertRefused(409, decide(target(ProxyTarget.State.NOT_READY), "POST", "/process.Process/Start", "PUBLIC", null));
    }

    @Test
    void shouldRouteOnlyEnvdsPort() {
        assertRefused(502, EnvdAdmission.decide(target(ProxyTarget.State.READY), SANDBOX, "8000", "GET", "/health",
                "PUBLIC", null, NOW));
        assertInstanceOf(Admission.Admitted.class, EnvdAdmission.decide(target(ProxyTarget.State.READY), SANDBOX, null,
                "GET", "/health", "PUBLIC", null, NOW));
    }

    @Test
    void shouldTakeFilesUrlSignaturesMadeAsTheSdkMakesThem() {
        // the JS SDK's getSignature('/home/user/a.txt', 'read', undefined, token): base64 of SHA-256, '=' removed
        String read = EnvdAdmission.signature("/home/user/a.txt", "read", "", "PUBLIC", null);
        assertTrue(EnvdAdmission.isWellFormed(new EnvdAdmission.Signature("a", null, read, null)));
        assertTrue(!EnvdAdmission.isWellFormed(new EnvdAdmission.Signature("a", null, "v1_short", null)));
        // computed apart with node's crypto, as the SDK's sha256() does it
        assertEquals("v1_2bUGRoYSmWPBN9jk/I+QsWk+OemnYODKHfmE8Lika/c", read);
        String query = "path=" + enc("/home/user/a.txt") + "&signature=" + enc(read);
        assertInstanceOf(Admission.Admitted.class, decide(target(ProxyTarget.State.READY), "GET", "/files", null, query));
        // a read signature does not write, nor name another path or user, nor pass a token of another sandbox
        assertRefused(401, decide(target(ProxyTarget.State.READY), "POST", "/files", null, query));
        assertRefused(401, decide(target(ProxyTarget.State.READY), "GET", "/files", null,
                "path=" + enc("/etc/passwd") + "&signature=" + enc(read)));
        assertRefused(401, decide(target(ProxyTarget.State.READY), "GET", "/files", null, query + "&username=root"));
        assertRefused(401, decide(target(ProxyTarget.State.READY), "GET", "/files", null, "path=%2Fa"));
        String other = EnvdAdmission.signature("/home/user/a.txt", "read", "", "OTHER", null);
        assertRefused(401, decide(target(ProxyTarget.State.READY), "GET", "/files", null,
                "path=" + enc("/home/user/a.txt") + "&signature=" + enc(other)));
    }

    @Test
    void shouldHonourASignaturesExpiry() {
        long later = NOW.getEpochSecond() + 60;
        long earlier = NOW.getEpochSecond() - 1;
        String valid = EnvdAdmission.signature("a.txt", "write", "user", "PUBLIC", later);
        assertInstanceOf(Admission.Admitted.class, decide(target(ProxyTarget.State.READY), "POST", "/files", null,
                "path=a.txt&username=user&signature=" + enc(valid) + "&signature_expiration=" + later));
        String expired = EnvdAdmission.signature("a.txt", "write", "user", "PUBLIC", earlier);
        assertRefused(401, decide(target(ProxyTarget.State.READY), "POST", "/files", null,
                "path=a.txt&username=user&signature=" + enc(expired) + "&signature_expiration=" + earlier));
        // the expiry is signed: moving it on breaks the signature
        assertRefused(401, decide(target(ProxyTarget.State.READY), "POST", "/files", null,
                "path=a.txt&username=user&signature=" + enc(expired) + "&signature_expiration=" + later));
        assertRefused(401, decide(target(ProxyTarget.State.READY), "POST", "/files", null,
                "path=a.txt&username=user&signature=" + enc(valid) + "&signature_expiration=soon"));
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
