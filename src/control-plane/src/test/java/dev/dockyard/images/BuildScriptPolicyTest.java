package dev.dockyard.images;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class BuildScriptPolicyTest {

    private static final ExtraDependencies SCRIPT = new ExtraDependencies(List.of(), "curl -s x | sh");
    private static final ExtraDependencies APT = new ExtraDependencies(List.of("jq"), "");

    @Test
    void shouldLetOnlyAdminsRunScriptsByDefault() {
        BuildScriptPolicy policy = new BuildScriptPolicy(null);
        assertEquals(Optional.empty(), policy.refusal(true, SCRIPT));
        String reason = policy.refusal(false, SCRIPT).orElseThrow();
        assertTrue(reason.contains("dockyard.images.scripts=admins"), reason);
        assertEquals(Optional.empty(), policy.refusal(false, APT), "apt package names stay open to users");
        assertEquals(Optional.empty(), policy.refusal(false, ExtraDependencies.NONE));
        assertEquals(policy.refusal(false, SCRIPT), new BuildScriptPolicy("admins").refusal(false, SCRIPT));
    }

    @Test
    void shouldLetUsersRunScriptsOnlyWhenConfigured() {
        assertEquals(Optional.empty(), new BuildScriptPolicy("users").refusal(false, SCRIPT));
        assertEquals(Optional.empty(), new BuildScriptPolicy(" USERS ").refusal(false, SCRIPT));
    }

    @Test
    void shouldRefuseEveryoneWithNone() {
        BuildScriptPolicy none = new BuildScriptPolicy("none");
        assertTrue(none.refusal(true, SCRIPT).orElseThrow().contains("dockyard.images.scripts=none"));
        assertTrue(none.refusal(false, SCRIPT).isPresent());
        assertEquals(Optional.empty(), none.refusal(false, APT));
    }

    @Test
    void shouldRefuseEveryoneWhenTheSettingIsMistyped() {
        String reason = new BuildScriptPolicy("user").refusal(true, SCRIPT).orElseThrow();
        assertTrue(reason.contains("dockyard.images.scripts='user' is not one of admins, users, none"), reason);
    }

    @Test
    void shouldThrowTheCallersExceptionWithTheReason() {
        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> BuildScriptPolicy.requireAllowed(false, SCRIPT, IllegalStateException::new));
        assertTrue(refused.getMessage().startsWith("extraDeps.script is refused"), refused.getMessage());
        BuildScriptPolicy.requireAllowed(false, APT, IllegalStateException::new);
        BuildScriptPolicy.requireAllowed(true, SCRIPT, IllegalStateException::new);
    }
}
