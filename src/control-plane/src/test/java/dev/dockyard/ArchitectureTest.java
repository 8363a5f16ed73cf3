package dev.dockyard;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The control plane's shape, checked on its compiled classes (docs/architecture.md, "Where things go").
 *
 * <p>Every rule is plain: each engine's client library stays in its backend package, the backends
 * are known through their port, requests, SSE and servlets stay in the interface ring, the rings
 * point inwards, no package dependency closes a cycle, and JPA's {@code EntityManager} is used only
 * in {@code persistence}, behind the domain's ports. (Issue "The house" froze three of them at
 * their violations of 2026-11-29; the moves of that day emptied every record.)
 */
class ArchitectureTest {

    /** The control plane's own classes: the module's build output, not the libraries beside it. */
    private static final JavaClasses CLASSES = new ClassFileImporter()
            .importPath(Path.of(System.getProperty("user.dir"), "target", "classes"));

    /**
     * Where the outside world calls in: the REST resources, the Remote Runtime API, E2B's API, the
     * console, the service proxy; and the start's warm-up, a client of the API over loopback that
     * makes and deletes its rehearsal's user through the use cases.
     */
    private static final String[] INTERFACE_RING = {"dev.dockyard.api..", "dev.dockyard.runtimeapi..", "dev.dockyard.e2b..",
            "dev.dockyard.console..", "dev.dockyard.proxy..", "dev.dockyard.observability..", "dev.dockyard.warmup.."};

    /** The interface ring without the metrics bean, which the services call: where requests come in. */
    private static final String[] CALLED_FROM_OUTSIDE = {"dev.dockyard.api..", "dev.dockyard.runtimeapi..", "dev.dockyard.e2b..",
            "dev.dockyard.console..", "dev.dockyard.proxy..", "dev.dockyard.warmup.."};

    @Test
    void shouldSeeTheControlPlanesClasses() {
        // an empty import (no build output where expected) would pass every rule below
        assertTrue(CLASSES.size() > 300, "classes imported from target/classes: " + CLASSES.size());
    }

    @Test
    void shouldKeepDockerJavaInTheDockerBackend() {
        noClasses().that().resideOutsideOfPackage("dev.dockyard.backend.docker..")
                .should().dependOnClassesThat().resideInAPackage("com.github.dockerjava..")
                .check(CLASSES);
    }

    /**
     * The rest of the control plane knows backends through the port ({@code RuntimeBackend},
     * {@code BackendNodes}, {@code NodeType}), never one of them by its class: what a node is, is
     * the composition root's business ({@code backend.ConfiguredNodes} opens each with the
     * {@code NodeFactory} bean of its type).
     */
    @Test
    void shouldKnowTheBackendsOnlyThroughTheirPort() {
        noClasses().that().resideOutsideOfPackage("dev.dockyard.backend..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.dockyard.backend.docker..",
                        "dev.dockyard.backend.kubernetes..", "dev.dockyard.backend.remote..", "dev.dockyard.backend.local..",
                        "dev.dockyard.backend.cli..")
                .check(CLASSES);
    }

    @Test
    void shouldKeepTheKubernetesClientInTheKubernetesBackend() {
        noClasses().that().resideOutsideOfPackage("dev.dockyard.backend.kubernetes..")
                .should().dependOnClassesThat().resideInAPackage("io.fabric8..")
                .check(CLASSES);
    }

    /**
     * The rings point inwards: the domain (and the adapters beside it) knows neither the use cases
     * nor the interface ring, and the use cases do not know the interface ring. The metrics bean
     * ({@code observability}) is not a target here: the services report to it, and it imports
     * none of them.
     */
    @Test
    void shouldKeepTheDomainFreeOfUseCasesAndInterfaces() {
        noClasses().that().resideOutsideOfPackages(concat(INTERFACE_RING, "dev.dockyard.application.."))
                .should().dependOnClassesThat().resideInAnyPackage(concat(CALLED_FROM_OUTSIDE,
                        "dev.dockyard.application.."))
                .as("the domain knows neither the use cases nor the interface ring").check(CLASSES);
        noClasses().that().resideInAPackage("dev.dockyard.application..")
                .should().dependOnClassesThat().resideInAnyPackage(CALLED_FROM_OUTSIDE)
                .as("the use cases do not know the interface ring").check(CLASSES);
    }

    private static String[] concat(String[] packages, String more) {
        String[] all = Arrays.copyOf(packages, packages.length + 1);
        all[packages.length] = more;
        return all;
    }

    /**
     * Package cycles: no package dependency that closes a circle (one between two packages of a
     * tangle, a strongly connected part of the package graph). The record of 2026-11-29 morning
     * held 73 such dependencies in two tangles; the moves of that day emptied it. (ArchUnit's own
     * cycle rule lists each elementary cycle: with a tangle, hundreds of them, more than it detects
     * in one go; the tangles' edges name what to turn around.)
     */
    @Test
    void shouldHaveNoPackageCycle() {
        Set<String> edges = PackageTangles.edges(CLASSES, "dev.dockyard");
        assertTrue(edges.isEmpty(), "package dependencies that close a package cycle (turn the dependency around "
                + "or move the class): " + edges);
    }

    @Test
    void shouldServeHttpOnlyFromTheInterfaceRing() {
        noClasses().that().resideOutsideOfPackages(INTERFACE_RING)
                .should().dependOnClassesThat().resideInAnyPackage("jakarta.ws.rs.container..", "jakarta.ws.rs.sse..",
                        "jakarta.servlet..")
                .as("requests, SSE and servlets only in the interface ring").check(CLASSES);
    }

    /**
     * The domain reaches the database through ports (the runtimes', pools', accounts', workspaces',
     * credentials', audit entries', leases' and idempotent answers'), implemented on JPA in
     * {@code persistence}: the record of 2026-11-29 held 82 fields and calls of the
     * {@code EntityManager} elsewhere, in seven classes, and the moves of that day emptied it.
     */
    @Test
    void shouldReachTheDatabaseOnlyThroughPersistence() {
        noClasses().that().resideOutsideOfPackage("dev.dockyard.persistence..")
                .should().dependOnClassesThat().haveFullyQualifiedName("jakarta.persistence.EntityManager")
                .as("the EntityManager only in persistence, behind repository ports").check(CLASSES);
    }

    /**
     * Requests read and change the stored state through the use cases ({@code application}), never
     * through the domain's storage ports: what a request may see and do is decided in one place.
     */
    @Test
    void shouldReachStoredStateFromRequestsOnlyThroughUseCases() {
        noClasses().that().resideInAnyPackage(CALLED_FROM_OUTSIDE)
                .should().dependOnClassesThat().haveFullyQualifiedName("dev.dockyard.runtime.RuntimeRepository")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("dev.dockyard.pool.PoolRepository")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("dev.dockyard.audit.AuditEntries")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("dev.dockyard.cluster.LeaseStore")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("dev.dockyard.credentials.CredentialStore")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("dev.dockyard.tenancy.AccountStore")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("dev.dockyard.workspace.WorkspaceStore")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("dev.dockyard.idempotency.IdempotentAnswers")
                .as("requests reach the storage ports only through the use cases").check(CLASSES);
    }
}
