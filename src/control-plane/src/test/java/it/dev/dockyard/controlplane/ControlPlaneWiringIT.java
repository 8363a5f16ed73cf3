package it.dev.dockyard.controlplane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.io.File;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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
