package dev.dockyard.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** Per-runtime and per-user tunnel limits (issue 26, item 4): one key must not hold every tunnel. */
class TunnelLimitsTest {

    @Test
    void shouldRefuseTheTunnelOverARuntimesLimitAndLetOtherRuntimesOpenTheirs() {
        TunnelLimits limits = new TunnelLimits(2, 10);
        assertEquals(Optional.empty(), limits.tryAcquire("rt-a", "u1"));
        assertEquals(Optional.empty(), limits.tryAcquire("rt-a", "u1"));
        Optional<String> refused = limits.tryAcquire("rt-a", "u1");
        assertTrue(refused.orElseThrow().contains("runtime"), refused.toString());
        assertEquals(2, limits.openForRuntime("rt-a"));
        assertEquals(2, limits.openForUser("u1"), "a refused tunnel is not counted for the user");
        assertEquals(Optional.empty(), limits.tryAcquire("rt-b", "u1"));
        limits.release("rt-a", "u1");
        assertEquals(Optional.empty(), limits.tryAcquire("rt-a", "u1"), "a closed tunnel frees its place");
    }

    @Test
    void shouldRefuseTheTunnelOverAUsersLimitAcrossRuntimes() {
        TunnelLimits limits = new TunnelLimits(10, 3);
        for (String runtime : List.of("rt-a", "rt-b", "rt-c")) {
            assertEquals(Optional.empty(), limits.tryAcquire(runtime, "u1"));
        }
        Optional<String> refused = limits.tryAcquire("rt-d", "u1");
        assertTrue(refused.orElseThrow().contains("user"), refused.toString());
        assertEquals(0, limits.openForRuntime("rt-d"), "the runtime's count is given back when the user's refuses");
        assertEquals(Optional.empty(), limits.tryAcquire("rt-d", "u2"), "another user is not held up");
        limits.release("rt-a", "u1");
        assertEquals(Optional.empty(), limits.tryAcquire("rt-d", "u1"));
    }

    @Test
    void shouldForgetARuntimeWhoseTunnelsAreAllClosed() {
        TunnelLimits limits = new TunnelLimits(5, 5);
        limits.tryAcquire("rt-a", "u1");
        limits.release("rt-a", "u1");
        limits.release("rt-a", "u1"); // a second release never goes below zero
        assertEquals(0, limits.openForRuntime("rt-a"));
        assertEquals(0, limits.openForUser("u1"));
        assertEquals(Optional.empty(), limits.tryAcquire("rt-a", "u1"));
        assertEquals(1, limits.openForRuntime("rt-a"));
    }

    @Test
    void shouldNeverCountPastTheLimitUnderContention() throws Exception {
        TunnelLimits limits = new TunnelLimits(64, 128);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Callable<Boolean>> tries = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                tries.add(() -> limits.tryAcquire("rt-a", "u1").isEmpty());
            }
            int admitted = 0;
            for (Future<Boolean> f : pool.invokeAll(tries)) {
                admitted += f.get() ? 1 : 0;
            }
            assertEquals(64, admitted);
            assertEquals(64, limits.openForRuntime("rt-a"));
            assertEquals(64, limits.openForUser("u1"));
        } finally {
            pool.shutdownNow();
        }
    }
}
