package it.dev.dockyard.controlplane;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.runtime.reconciliation.Reconciler;
import dev.dockyard.runtime.reconciliation.ReconcilerTimer;
import jakarta.inject.Inject;
import java.io.File;
import java.util.List;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.importer.ZipImporter;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The reconciler's passes, run by its EJB timer in a real Liberty, call the backend with no
 * transaction active: a pass that outlived the transaction timeout would otherwise roll back and
 * run again, and every Docker call would hold a global transaction open.
 */
@ExtendWith(ArquillianExtension.class)
class ReconcilerTransactionIT {

    @Deployment
    static WebArchive deployment() {
        return ShrinkWrap.create(ZipImporter.class, "dockyard.war").importFrom(new File("target/dockyard.war"))
                .as(WebArchive.class).addClasses(ReconcilerTransactionIT.class, TransactionRecordingNodes.class);
    }

    @Inject
    ReconcilerTimer timer;

    @Inject
    TransactionRecordingNodes nodes;

    @Test
    void shouldCallTheBackendWithNoTransactionActiveDuringAPass() throws InterruptedException {
        // the startup pass and any scheduled one have run through the timer bean already; one more on
        // demand (null while a scheduled pass is under way: then wait for it, briefly)
        Reconciler.Report report = null;
        for (int i = 0; i < 50 && report == null; i++) {
            report = timer.runPass();
            if (report == null) {
                Thread.sleep(100);
            }
        }
        assertNotNull(report);

        List<TransactionRecordingNodes.Call> calls = nodes.calls();
        assertTrue(calls.stream().anyMatch(c -> c.what().equals("list")), "a pass lists the node: " + calls);
        assertFalse(calls.stream().anyMatch(TransactionRecordingNodes.Call::inTransaction),
                "backend calls made inside a transaction: " + calls);
    }
}
