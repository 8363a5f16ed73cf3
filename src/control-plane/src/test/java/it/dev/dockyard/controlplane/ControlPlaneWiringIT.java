package it.dev.dockyard.controlplane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.application.retention.History;
import dev.dockyard.audit.AuditEntries;
import dev.dockyard.audit.AuditEntry;
import dev.dockyard.backend.BackendNodes;
import dev.dockyard.runtime.RuntimeRepository;
import dev.dockyard.runtime.IllegalTransitionException;
import dev.dockyard.runtime.RuntimeStatus;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.StatusChange;
import dev.dockyard.runtime.provisioning.ProvisioningJournal;
import dev.dockyard.tenancy.Accounts;
import dev.dockyard.tenancy.Role;
import jakarta.inject.Inject;
import jakarta.transaction.UserTransaction;
import java.io.File;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.importer.ZipImporter;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The control plane's wiring inside a real, managed Liberty: CDI producers and injection, JPA on
 * the embedded Derby data source with REQUIRES_NEW transactions, JAX-RS with its filters and
 * problem+json mappers. The deployment is the very WAR the build produced.
 */
@ExtendWith(ArquillianExtension.class)
class ControlPlaneWiringIT {

    @Deployment
    static WebArchive deployment() {
        return ShrinkWrap.create(ZipImporter.class, "dockyard.war").importFrom(new File("target/dockyard.war"))
                .as(WebArchive.class).addClass(ControlPlaneWiringIT.class);
    }

    @Inject
    ProvisioningJournal journal;

    @Inject
    RuntimeRepository runtimes;

    @Inject
    BackendNodes nodes;

    @ArquillianResource
    URL base;

    /** One user per test run: runtimes these tests leave live must not fill a later run's quota. */
    private static final String USER = "wiring-" + UUID.randomUUID().toString().substring(0, 8);

    private static SandboxRuntime newRuntime(String conversation) {
        return new SandboxRuntime(conversation, USER, "docker", "dockyard/sandbox:latest", 1.0, 512, 60,
                Instant.now());
    }

    @Inject
    Accounts accounts;

    private SandboxRuntime register(SandboxRuntime runtime) {
        accounts.ensure(runtime.userId(), Role.USER);
        ProvisioningJournal.Registration registration = journal.register(runtime, Role.USER, false);
        if (registration.overQuota() != null) {
            throw registration.overQuota();
        }
        return registration.admitted() ? registration.runtime() : registration.existing();
    }

    @Test
    void shouldInjectTheDockerAdapterBehindTheBackendPort() {
        assertEquals("docker", nodes.on(nodes.defaultNode()).name());
        assertEquals(nodes.defaultNode(), nodes.names().get(0));
    }

    @Test
    void shouldPersistEveryTransitionWithItsHistory() {
        SandboxRuntime runtime = register(newRuntime("wiring-" + UUID.randomUUID()));
        journal.transition(runtime.id(), RuntimeStatus.RUNTIME_STARTED, "started",
                r -> r.reachableAt("http://127.0.0.1:1"));
        journal.transition(runtime.id(), RuntimeStatus.READY, "Ready");

        SandboxRuntime stored = journal.find(runtime.id()).orElseThrow();
        assertEquals(RuntimeStatus.READY, stored.status());
        assertEquals("http://127.0.0.1:1", stored.executorUrl());
        assertTrue(stored.readyAt() != null);
        List<StatusChange> history = runtimes.history(runtime.id());
        assertEquals(List.of(RuntimeStatus.STARTING_RUNTIME, RuntimeStatus.RUNTIME_STARTED, RuntimeStatus.READY),
                history.stream().map(StatusChange::status).toList());
    }

    @Test
    void shouldRefuseASecondLiveRuntimeForAConversationUntilTheFirstStops() {
        String conversation = "wiring-busy-" + UUID.randomUUID();
        SandboxRuntime first = register(newRuntime(conversation));
        assertEquals(first.id(), register(newRuntime(conversation)).id(), "the live one, not a new one");
        assertEquals(1, runtimes.list(USER, conversation, null).size());

        journal.stop(first.id(), "done");
        SandboxRuntime second = register(newRuntime(conversation));
        assertEquals(second.id(), journal.live(USER, conversation).orElseThrow().id());
    }

    @Test
    void shouldRefuseTransitionsTheLifeCycleForbidsAndKeepTheRow() {
        SandboxRuntime runtime = register(newRuntime("wiring-" + UUID.randomUUID()));
        journal.stop(runtime.id(), "deleted");
        assertThrows(IllegalTransitionException.class,
                () -> journal.transition(runtime.id(), RuntimeStatus.READY, "too late"));
        SandboxRuntime stored = journal.find(runtime.id()).orElseThrow();
        assertEquals(RuntimeStatus.STOPPED, stored.status());
        assertNull(stored.readyAt());
    }

    @Inject
    History history;

    @Inject
    AuditEntries audit;

    @Inject
    UserTransaction tx;

    /**
     * The retention's statements on the real database: a runtime that ended before the cutoff goes
     * with its status changes, one that lives stays, and so does every row after the cutoff. The
     * rows it removes are dated in 2001, so the cutoff reaches no other test's rows.
     */
    @Test
    void shouldForgetHistoryOlderThanTheCutoffOnTheRealDatabase() throws Exception {
        Instant longAgo = Instant.parse("2001-01-01T00:00:00Z");
        Instant cutoff = longAgo.plus(Duration.ofDays(1));
        SandboxRuntime ended = register(newRuntime("wiring-" + UUID.randomUUID()));
        SandboxRuntime live = register(newRuntime("wiring-" + UUID.randomUUID()));
        String auditedRuntime = "rt-retention-" + UUID.randomUUID().toString().substring(0, 8);
        tx.begin();
        SandboxRuntime row = runtimes.lock(ended.id()).orElseThrow();
        runtimes.record(row.transitionTo(RuntimeStatus.STOPPED, "ended long ago", longAgo));
        SandboxRuntime liveRow = runtimes.lock(live.id()).orElseThrow();
        runtimes.record(liveRow.transitionTo(RuntimeStatus.RUNTIME_STARTED, "started long ago", longAgo));
        tx.commit();
        audit.store(List.of(auditEntry(longAgo, auditedRuntime), auditEntry(Instant.now(), auditedRuntime)));

        // at least these rows: a run that failed half-way may have left its own rows of 2001 behind
        assertTrue(history.forgetRuntimesEndedBefore(cutoff) >= 1);
        assertTrue(history.forgetEventsBefore(cutoff) >= 1, "the live runtime's change of 2001");
        assertTrue(history.forgetAuditBefore(cutoff) >= 1);

        assertTrue(journal.find(ended.id()).isEmpty());
        assertTrue(runtimes.history(ended.id()).isEmpty());
        assertEquals(RuntimeStatus.RUNTIME_STARTED, journal.find(live.id()).orElseThrow().status());
        assertEquals(List.of(RuntimeStatus.STARTING_RUNTIME),
                runtimes.history(live.id()).stream().map(StatusChange::status).toList());
        assertEquals(1, audit.ofRuntime(auditedRuntime, 10).size());
        assertEquals(0, history.forgetRuntimesEndedBefore(cutoff), "nothing left before the cutoff");
        journal.stop(live.id(), "done");
    }

    private static AuditEntry auditEntry(Instant at, String runtimeId) {
        return new AuditEntry(at, USER, runtimeId, "run", "LOW", "", AuditEntry.Decision.ALLOWED, 200, 0, 5, 10);
    }

    @Test
    @RunAsClient
    void shouldAnswerProblemJsonOverHttp(@ArquillianResource URL url) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        URI runtimesUri = url.toURI().resolve("api/v1/runtimes");

        HttpResponse<String> noKey = http.send(HttpRequest.newBuilder(runtimesUri).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(401, noKey.statusCode());
        assertEquals("application/problem+json", noKey.headers().firstValue("Content-Type").orElse(""));
        assertTrue(noKey.body().contains("\"type\":\"https://dockyard.dev/problems/unauthorized\""), noKey.body());

        HttpResponse<String> unknown = http.send(HttpRequest.newBuilder(runtimesUri.resolve("runtimes/rt-none"))
                .header("X-API-Key", "arquillian-admin-key").GET().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(404, unknown.statusCode(), unknown.body());

        HttpResponse<String> invalid = http.send(HttpRequest.newBuilder(runtimesUri)
                .header("X-API-Key", "arquillian-admin-key").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"sandbox\":{}}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(400, invalid.statusCode());
        assertTrue(invalid.body().contains("conversationId is required"), invalid.body());

        HttpResponse<String> list = http.send(HttpRequest.newBuilder(runtimesUri)
                .header("X-API-Key", "arquillian-admin-key").GET().build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, list.statusCode());
        assertTrue(list.body().startsWith("{\"runtimes\":["), list.body());
        assertTrue(!list.body().contains("sessionKey") && !list.body().contains("session_key"), list.body());
    }
}
