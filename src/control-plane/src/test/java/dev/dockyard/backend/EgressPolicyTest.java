package dev.dockyard.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.backend.EgressPolicy.Destination;
import dev.dockyard.backend.EgressPolicy.Mode;
import java.util.List;
import org.junit.jupiter.api.Test;

class EgressPolicyTest {

    @Test
    void shouldReadBackWhatItStores() {
        EgressPolicy policy = new EgressPolicy(Mode.ALLOWLIST,
                List.of(new Destination("10.1.2.3", 5432), new Destination("151.101.0.223", 443)));
        assertEquals("allowlist 10.1.2.3:5432 151.101.0.223:443", policy.encode());
        assertEquals(policy, EgressPolicy.decode(policy.encode()));
        assertEquals(new EgressPolicy(Mode.NONE, List.of()), EgressPolicy.decode("none"));
    }

    @Test
    void shouldTreatARuntimeOfBeforePoliciesAsOpen() {
        assertEquals(EgressPolicy.OPEN, EgressPolicy.decode(null));
        assertEquals(EgressPolicy.OPEN, EgressPolicy.decode(" "));
        assertFalse(EgressPolicy.OPEN.ownNetwork());
        assertTrue(new EgressPolicy(Mode.NONE, List.of()).ownNetwork());
    }

    @Test
    void shouldRefuseNamesAndBadPortsAsDestinations() {
        assertThrows(IllegalArgumentException.class, () -> new Destination("pypi.org", 443));
        assertThrows(IllegalArgumentException.class, () -> new Destination("10.0.0.256", 443));
        assertThrows(IllegalArgumentException.class, () -> new Destination("10.0.0.1", 0));
        assertThrows(IllegalArgumentException.class, () -> new Destination("10.0.0.1", 65536));
        assertThrows(IllegalArgumentException.class, () -> Destination.parse("10.0.0.1"));
    }

    @Test
    void shouldRefuseDestinationsOnModesThatTakeNone() {
        List<Destination> one = List.of(new Destination("10.0.0.1", 80));
        assertThrows(IllegalArgumentException.class, () -> new EgressPolicy(Mode.NONE, one));
        assertThrows(IllegalArgumentException.class, () -> new EgressPolicy(Mode.OPEN, one));
    }

    @Test
    void shouldSpellModesAsTheApiDoes() {
        assertEquals(Mode.ALLOWLIST, Mode.of("allowlist"));
        assertThrows(IllegalArgumentException.class, () -> Mode.of("ALLOWLIST"));
        assertThrows(IllegalArgumentException.class, () -> Mode.of("host"));
    }
}
