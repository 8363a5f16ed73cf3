package dev.dockyard.tenancy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.fakes.MutableClock;
import java.lang.reflect.Proxy;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Keys of both kinds: how they are written, that only their hash is kept, and that either finds its user. */
class ApiKeysTest {

    /** What E2B's Python SDK (and its JS SDK up to 2.45) checks a key against. */
    private static final Pattern E2B_KEY = Pattern.compile("^e2b_[0-9a-f]+$");

    /** key hash → user, as the store keeps them. */
    private final Map<String, String> keys = new HashMap<>();
    private final Accounts accounts = new Accounts();

    {
        UserAccount alice = new UserAccount("alice", Role.USER, Instant.EPOCH);
        accounts.clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
        accounts.store = (AccountStore) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {AccountStore.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "lock", "find" -> Optional.ofNullable("alice".equals(args[0]) ? alice : null);
                    case "removeKeys" -> {
                        keys.values().removeIf(args[0]::equals);
                        yield null;
                    }
                    case "add" -> {
                        ApiKeyRecord record = (ApiKeyRecord) args[0];
                        keys.put(record.keyHash(), record.userId());
                        yield null;
                    }
                    case "key" -> Optional.ofNullable(keys.get((String) args[0]))
                            .map(user -> new ApiKeyRecord((String) args[0], user, Instant.EPOCH));
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    @Test
    void shouldWriteAnE2bKeyAsE2bsSdksCheckIt() {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 50; i++) {
            String key = ApiKeyRecord.newKey(KeyKind.E2B);
            assertTrue(E2B_KEY.matcher(key).matches(), key);
            assertEquals(4 + 64, key.length(), "32 random bytes in hex");
            seen.add(key);
        }
        assertEquals(50, seen.size());
        assertTrue(ApiKeyRecord.newKey(KeyKind.DOCKYARD).startsWith("dy_"));
        assertFalse(E2B_KEY.matcher(ApiKeyRecord.newKey()).matches(), "without a kind: Dockyard's, as before");
    }

    @Test
    void shouldKeepOnlyTheHashOfARotatedE2bKeyAndFindItsUserByIt() {
        String dockyard = accounts.rotateKey("alice").orElseThrow();
        String e2b = accounts.rotateKey("alice", KeyKind.E2B).orElseThrow();

        assertTrue(E2B_KEY.matcher(e2b).matches(), e2b);
        assertEquals(Set.of(ApiKeyRecord.hash(e2b)), keys.keySet(), "the hash only, the older key gone");
        assertEquals("alice", accounts.byKey(e2b).orElseThrow().userId());
        assertTrue(accounts.byKey(dockyard).isEmpty(), "rotated: the older key is refused");
        assertTrue(accounts.rotateKey("nobody", KeyKind.E2B).isEmpty());
    }

    @Test
    void shouldNameTheKindsAsTheApiDoes() {
        assertEquals(Optional.of(KeyKind.E2B), KeyKind.named("e2b"));
        assertEquals(Optional.of(KeyKind.DOCKYARD), KeyKind.named("dockyard"));
        assertTrue(KeyKind.named("E2B").isEmpty());
    }
}
