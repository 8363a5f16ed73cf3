package dev.dockyard.tenancy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dockyard.fakes.MutableClock;
import java.lang.reflect.Proxy;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The account rows provisioning relies on: {@link Accounts#ensure} and what it remembers. */
class AccountsTest {

    /** The user rows committed so far. */
    private final Map<String, UserAccount> committed = new HashMap<>();
    /** Rows persisted by the transaction under way: committed, or gone with its rollback. */
    private final List<UserAccount> pending = new ArrayList<>();
    private int finds;
    private final Accounts accounts = new Accounts();

    {
        accounts.clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
        accounts.store = (AccountStore) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {AccountStore.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "find" -> {
                        finds++;
                        yield Optional.ofNullable(committed.get((String) args[0]));
                    }
                    case "add" -> {
                        pending.add((UserAccount) args[0]);
                        yield null;
                    }
                    case "flush" -> null;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    private void commit() {
        pending.forEach(a -> committed.put(a.userId(), a));
        pending.clear();
    }

    private void rollBack() {
        pending.clear();
    }

    @Test
    void shouldCreateTheRowAgainWhenTheTransactionThatCreatedItDidNotCommit() {
        accounts.ensure("alice", Role.USER);
        rollBack();

        accounts.ensure("alice", Role.USER);
        commit();

        assertEquals(1, committed.size(), "a user whose first row never committed has one now: "
                + "allowance() would refuse every registration of theirs otherwise");
    }

    @Test
    void shouldNeedNoLookUpOnceTheRowIsSeenCommitted() {
        accounts.ensure("alice", Role.USER);
        commit();
        accounts.ensure("alice", Role.USER);
        int seen = finds;

        accounts.ensure("alice", Role.USER);
        accounts.ensure("alice", Role.USER);

        assertEquals(seen, finds, "known once its row was read back");
    }
}
