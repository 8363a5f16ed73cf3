package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;

import it.dev.dockyard.soak.Soak;
import it.dev.dockyard.support.ControlPlane;
import it.dev.dockyard.support.DisposableControlPlane;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The soak harness's short run ({@code docker/soak.sh --smoke}): a few agents loop like coding
 * agents for 75 s or more while every kind of fault is injected once, kill -9 of
 * the control plane among them; then nothing acknowledged is lost, nothing stuck, duplicated or
 * left behind, and no 5xx but a 503 with Retry-After. On the disposable control plane: it is killed.
 */
@Tag(DisposableControlPlane.PROFILE)
@ExtendWith(DisposableControlPlane.Lifecycle.class)
@ResourceLock(DisposableControlPlane.LOCK)
class SoakSmokeIT {

    @Test
    void shouldLoseNothingAndLeaveNothingUnderLoadAndFaults() throws Exception {
        ControlPlane server = DisposableControlPlane.server();
        Soak.Server control = new Soak.Server() {
            @Override
            public String url() {
                return server.url();
            }

            @Override
            public long pid() throws Exception {
                return server.pid().orElseThrow();
            }

            @Override
            public void killNine() throws Exception {
                server.killNine();
            }

            @Override
            public void start() throws Exception {
                server.start();
            }
        };
        Soak.Report report = new Soak(server.url(), DisposableControlPlane.api().key(), DisposableControlPlane.INSTANCE,
                control, Soak.Settings.smoke()).run();
        assertTrue(report.passed(), String.join("\n", report.failures()) + "\n" + report.table());
    }
}
