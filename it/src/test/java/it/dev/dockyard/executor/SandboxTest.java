package it.dev.dockyard.executor;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** A suite that runs against one real sandbox container, started before its tests and removed after. */
abstract class SandboxTest {

    static Sandbox sandbox;

    @BeforeAll
    static void startSandbox() {
        sandbox = Sandbox.start();
    }

    @AfterAll
    static void removeSandbox() {
        sandbox.close();
    }
}
