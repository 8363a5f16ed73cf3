package it.dev.dockyard.executor;

import it.dev.dockyard.support.HostTmp;
import it.dev.dockyard.support.NodeSandbox;
import it.dev.dockyard.support.Sandbox;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;

/**
 * A suite that runs against one real sandbox container, started before its tests and removed after;
 * on the engine's default runtime, or on the one its class names with {@link OnRuntime} (a
 * subclass that runs the same suite on gVisor, say).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class SandboxTest {

    /** The Docker runtime the suite's sandbox runs on (docker run --runtime). */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.TYPE)
    @interface OnRuntime {
        String value();
    }

    /**
     * The suite runs on a runtime the it control plane provisions on this backend node
     * ({@link NodeSandbox}) instead of a container started here. A subclass says so with this
     * annotation rather than with a static {@code startSandbox} of its own: since JUnit 5.11 a
     * hidden static {@code @BeforeAll} of the superclass runs too (a container would be started,
     * and the parent's own {@code @BeforeAll} would act on it).
     */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.TYPE)
    @interface OnNode {
        String value();

        /** The node's runtimes run on this host: the suites' files in its /tmp are cleared first ({@link HostTmp}). */
        boolean onThisHost() default false;
    }

    /**
     * The suite's container runs {@code image} with extra {@code docker run} arguments (a plugin, a
     * setting). As with {@link OnNode}, a subclass says how its sandbox starts rather than starting
     * one itself in a {@code @BeforeAll}: this class's {@code @BeforeAll} runs first in any case, and
     * a container it started would be left running.
     */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.TYPE)
    @interface StartedWith {
        String image() default Sandbox.IMAGE;

        String[] args() default {};
    }

    Sandbox sandbox;

    @BeforeAll
    void startSandbox(TestInfo suite) {
        OnNode node = suite.getTestClass().map(c -> c.getAnnotation(OnNode.class)).orElse(null);
        if (node != null) {
            if (node.onThisHost()) {
                HostTmp.clear();
            }
            sandbox = NodeSandbox.start(node.value());
            return;
        }
        StartedWith startedWith = suite.getTestClass().map(c -> c.getAnnotation(StartedWith.class)).orElse(null);
        if (startedWith != null) {
            sandbox = Sandbox.startImage(startedWith.image(), startedWith.args());
            return;
        }
        OnRuntime runtime = suite.getTestClass().map(c -> c.getAnnotation(OnRuntime.class)).orElse(null);
        sandbox = runtime == null ? Sandbox.start() : Sandbox.start("--runtime", runtime.value());
    }

    /**
     * {@code text} with every "/workspace" replaced by the sandbox's workspace directory: the same
     * assertions then hold for a backend whose runtimes work in a host directory of their own.
     */
    String w(String text) {
        return text.replace("/workspace", sandbox.workspace);
    }

    @AfterAll
    void removeSandbox() {
        sandbox.close();
    }
}
