package dev.dockyard.application.remote;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.application.ExecutorOutages;
import dev.dockyard.application.runtimes.RuntimeService;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.provisioning.ProvisioningJournal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Whether {@code /resume} hands out a new key (dockyard.runtime-api.new-key-on-resume). */
class RemoteRuntimesResumeTest {

    private static final String KEY = "the-key-read-while-paused";
    private final RemoteRuntimes runtimes = new RemoteRuntimes();

    private static SandboxRuntime runtime(RuntimeStatus... path) {
        SandboxRuntime runtime = new SandboxRuntime("s1", "alice", "local", "img", 1.0, 512, 60, Instant.EPOCH);
        runtime.useServiceKey(KEY);
        for (RuntimeStatus next : path) {
            runtime.transitionTo(next, "t", Instant.EPOCH);
        }
        return runtime;
    }

    /** The key {@code /resume} answers for a PAUSED runtime whose key was {@link #KEY}. */
    private String resumedKey(boolean newKeyOnResume) {
        SandboxRuntime paused = runtime(RuntimeStatus.RUNTIME_STARTED, RuntimeStatus.READY, RuntimeStatus.PAUSED);
        SandboxRuntime awake = runtime(RuntimeStatus.RUNTIME_STARTED, RuntimeStatus.READY);
        runtimes.lifecycle = new RuntimeService() {
            @Override
            public SandboxRuntime resume(String id) {
                return awake;
            }
        };
        runtimes.journal = new ProvisioningJournal() {
            @Override
            public SandboxRuntime renewServiceKey(String id) {
                awake.renewServiceKey();
                return awake;
            }
        };
        runtimes.newKeyOnResume = newKeyOnResume;
        return runtimes.resume(paused).serviceKey();
    }

    @Test
    void shouldKeepTheKeyByDefaultSoThatOpenHandsSdkAttachesWithTheKeyItReadWhilePaused() {
        assertEquals(KEY, resumedKey(false));
    }

    @Test
    void shouldHandOutANewKeyWhenConfigured() {
        assertNotEquals(KEY, resumedKey(true));
    }

    /**
     * OpenHands' clients resume a runtime whose URL answered 503: one being recovered is waited for
     * (a little) and answered as it is then; one the recovery found frozen is thawed as any paused one.
     */
    @Test
    void shouldWaitForARuntimeBeingRecoveredAndThawItIfTheRecoveryFoundItFrozen() {
        SandboxRuntime disconnected = runtime(RuntimeStatus.RUNTIME_STARTED, RuntimeStatus.READY,
                RuntimeStatus.ERROR_RUNTIME_DISCONNECTED);
        SandboxRuntime back = runtime(RuntimeStatus.RUNTIME_STARTED, RuntimeStatus.READY);
        SandboxRuntime frozen = runtime(RuntimeStatus.RUNTIME_STARTED, RuntimeStatus.READY, RuntimeStatus.PAUSED);
        SandboxRuntime[] recovered = {back};
        List<String> resumed = new ArrayList<>();
        runtimes.outages = new ExecutorOutages() {
            @Override
            public boolean recovering(SandboxRuntime runtime) {
                return runtime.status() == RuntimeStatus.ERROR_RUNTIME_DISCONNECTED;
            }

            @Override
            public SandboxRuntime awaitRecovered(String runtimeId, Duration limit) {
                assertTrue(limit.toSeconds() < 10, "below OpenHands' 10 s for a Runtime API call");
                return recovered[0];
            }
        };
        runtimes.lifecycle = new RuntimeService() {
            @Override
            public SandboxRuntime resume(String id) {
                resumed.add(id);
                return back;
            }
        };

        assertSame(back, runtimes.resume(disconnected));
        assertTrue(resumed.isEmpty(), "nothing to thaw");
        recovered[0] = frozen;
        assertSame(back, runtimes.resume(disconnected));
        assertEquals(List.of(frozen.id()), resumed);
    }
}
