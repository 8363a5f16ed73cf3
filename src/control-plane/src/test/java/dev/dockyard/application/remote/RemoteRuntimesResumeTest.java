package dev.dockyard.application.remote;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.dockyard.application.runtimes.RuntimeService;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.provisioning.ProvisioningJournal;
import java.time.Instant;
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
}
