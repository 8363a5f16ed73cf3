package dev.dockyard.backend.docker;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.github.dockerjava.core.command.CreateContainerCmdImpl;
import dev.dockyard.backend.ExecutorServer;
import dev.dockyard.backend.SandboxProcess;
import dev.dockyard.backend.SandboxSpec;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The one variable of an executor container's environment: how the image's start script boots the executor. */
class ExecutorServerVariableTest {

    private static SandboxSpec executor() {
        return new SandboxSpec("r1", "c1", "cp", "dockyard-r1", "dockyard/sandbox:latest", 1, 0, 1024, 1024, "1000",
                8000, "key", List.of(), null, List.of());
    }

    private static String[] environment(SandboxSpec spec) {
        CreateContainerCmdImpl create = new CreateContainerCmdImpl(command -> null, null, spec.image());
        SandboxCreation.chooseExecutorServer(create, spec);
        return create.getEnv();
    }

    @Test
    void shouldTellTheContainerWhichServerToStartAndNothingElse() {
        assertArrayEquals(new String[] {"DOCKYARD_EXECUTOR_SERVER=liberty"},
                environment(executor().withExecutorServer(ExecutorServer.LIBERTY)));
        assertArrayEquals(new String[] {"DOCKYARD_EXECUTOR_SERVER=embedded"},
                environment(executor().withExecutorServer(ExecutorServer.EMBEDDED)));
    }

    @Test
    void shouldSayEmbeddedForASpecThatChoseNothingAsTheImageWouldWithoutTheVariable() {
        assertArrayEquals(new String[] {"DOCKYARD_EXECUTOR_SERVER=embedded"}, environment(executor()));
        assertArrayEquals(new String[] {"DOCKYARD_EXECUTOR_SERVER=embedded"},
                environment(executor().withExecutorServer(null)));
    }

    @Test
    void shouldGiveAnImagesOwnProgramNoExecutorServer() {
        SandboxSpec program = new SandboxSpec("r2", "c2", "cp", "dockyard-r2", "other:1", 1, 1, 1024, 1024, null,
                3000, "key", List.of(), new SandboxProcess(List.of("serve"), null, Map.of(), null), List.of())
                .withExecutorServer(ExecutorServer.LIBERTY);
        assertNull(program.executorServer());
        assertNull(environment(program));
    }
}
