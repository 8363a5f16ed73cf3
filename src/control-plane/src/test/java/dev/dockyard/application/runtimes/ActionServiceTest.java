package dev.dockyard.application.runtimes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.application.Refused;
import jakarta.json.JsonNumber;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ActionServiceTest {

    private static final Duration DEFAULT = Duration.ofSeconds(120);
    private static final Duration MAXIMUM = Duration.ofSeconds(3600);

    @Test
    void shouldRefuseActionTimeoutOverMaximum() {
        Refused refused = assertThrows(Refused.class, () -> ActionService.timeout(1e9, DEFAULT, MAXIMUM));
        assertEquals(Refused.Reason.INVALID_ACTION, refused.reason());
        assertEquals(3600, ((JsonNumber) refused.members().get("maximum")).intValue());
        assertTrue(refused.getMessage().contains("at most 3600 seconds"), refused.getMessage());
        assertThrows(Refused.class, () -> ActionService.timeout(Double.POSITIVE_INFINITY, DEFAULT, MAXIMUM));
        assertThrows(Refused.class, () -> ActionService.timeout(3600.5, DEFAULT, MAXIMUM));
    }

    @Test
    void shouldKeepTimeoutsWithinMaximum() {
        assertEquals(Duration.ofSeconds(3600), ActionService.timeout(3600.0, DEFAULT, MAXIMUM));
        assertEquals(Duration.ofMillis(1500), ActionService.timeout(1.5, DEFAULT, MAXIMUM));
        assertEquals(DEFAULT, ActionService.timeout(null, DEFAULT, MAXIMUM));
        assertEquals(Duration.ofSeconds(60), ActionService.timeout(null, DEFAULT, Duration.ofSeconds(60)),
                "a default above the maximum is cut to it");
    }

    @Test
    void shouldReadExitCodeOnlyOutsideOutputText() {
        assertEquals(2, exitCode("{\"content\":\"x\",\"extras\":{\"metadata\":{\"exit_code\": 2}}}"));
        assertEquals(-1, exitCode("{\"extras\":{\"exit_code\":-1}}"));
        assertNull(exitCode("{\"content\":\"\\\"exit_code\\\": 7\"}"));
        // the output's own text first, the observation's member after it
        assertEquals(0, exitCode("{\"content\":\"\\\"exit_code\\\": 7\",\"extras\":{\"exit_code\":0}}"));
        assertNull(exitCode("{\"extras\":{\"exit_code\":99999999999999}}"), "no int: none");
        assertNull(exitCode("{\"extras\":{\"exit_code\":12345678901}}"), "11 digits: none, not 10 of them");
        assertEquals(2147483647, exitCode("{\"extras\":{\"exit_code\":2147483647}}"));
        assertNull(exitCode("{\"extras\":{\"exit_code\":null}}"));
        assertNull(exitCode("{\"extras\":{\"exit_code\":"), "the answer ends at the name");
        assertNull(exitCode("\"exit_code\""));
    }

    @Test
    void shouldReadTheExitCodeAfterAMegabyteOfTextInAnyScript() {
        // the observation's bytes as they came: multibyte UTF-8 before the member, and a read's megabyte
        assertEquals(3, exitCode("{\"content\":\"Grüße, 世界 \\\"exit_code\\\": 5\",\"extras\":{\"exit_code\":3}}"));
        String megabyte = "x".repeat(1023) + "\\n";
        assertEquals(0, exitCode("{\"content\":\"" + megabyte.repeat(1024) + "\",\"extras\":{\"exit_code\":0}}"));
        assertNull(exitCode("{\"content\":\"" + megabyte.repeat(1024) + "\",\"observation\":\"read\"}"));
    }

    private static Integer exitCode(String observation) {
        return ActionService.exitCode(observation.getBytes(StandardCharsets.UTF_8));
    }
}
