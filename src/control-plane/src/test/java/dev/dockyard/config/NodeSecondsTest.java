package dev.dockyard.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A node's {@code disconnected-grace}: whole seconds, 1 or more, or a start that says what is wrong. */
class NodeSecondsTest {

    private static final String KEY = "dockyard.node.remote1.disconnected-grace";

    @Test
    void shouldReadWholeSeconds() {
        assertEquals(Optional.of(Duration.ofSeconds(300)), DockyardConfig.seconds(KEY, Optional.of(" 300 ")));
        assertEquals(Optional.empty(), DockyardConfig.seconds(KEY, Optional.empty()));
        assertEquals(Optional.empty(), DockyardConfig.seconds(KEY, Optional.of("  ")), "blank: the default");
    }

    @Test
    void shouldRefuseWhatIsNotWholeSecondsWithTheSettingsName() {
        for (String wrong : new String[] {"5m", "0", "-30", "1.5"}) {
            IllegalStateException refused = assertThrows(IllegalStateException.class,
                    () -> DockyardConfig.seconds(KEY, Optional.of(wrong)));
            assertTrue(refused.getMessage().startsWith(KEY + ": '" + wrong + "' is not a whole number of seconds"),
                    refused.getMessage());
        }
    }

    @Test
    void shouldRefuseABootLimitThatIsNotAWholeNumberWithTheSettingsName() {
        String key = "dockyard.node.local.max-concurrent-boots";
        assertEquals(Optional.of(3L), DockyardConfig.positive(key, Optional.of("3"), "boots"));
        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> DockyardConfig.positive(key, Optional.of("0"), "boots"));
        assertEquals(key + ": '0' is not a whole number of boots, 1 or more", refused.getMessage());
    }
}
