package dev.dockyard.backend.docker;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.DeviceRequest;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.Volume;
import com.github.dockerjava.core.command.CreateContainerCmdImpl;
import dev.dockyard.backend.SandboxIsolation;
import dev.dockyard.backend.SandboxProcess;
import dev.dockyard.backend.SandboxSpec;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SandboxConfinementTest {

    private static final SandboxHostSettings HARDENED = new SandboxHostSettings(true,
            Map.of("/tmp", "512m"), 65536, null, 0);

    private static SandboxSpec executor(SandboxIsolation isolation) {
        return new SandboxSpec("r1", "c1", "cp", "dockyard-r1", "dockyard/sandbox:latest", 1, 0, 1024, 1024, "1000",
                8000, "key", List.of(), null, List.of()).withIsolation(isolation);
    }

    private static CreateContainerCmdImpl create() {
        return new CreateContainerCmdImpl(command -> null, null, "dockyard/sandbox:latest");
    }

    @Test
    void shouldMakeAnExecutorSandboxRootReadOnlyWithTmpfsAVolumeForItsKeyAndOneForItsHome() {
        HostConfig host = HostConfig.newHostConfig();
        Bind workspace = new Bind("dockyard-r1-ws", new Volume("/workspace"));
        host.withBinds(workspace);
        CreateContainerCmdImpl create = create();
        SandboxConfinement.apply(create, host, executor(null), HARDENED);
        assertTrue(host.getReadonlyRootfs());
        assertEquals(Map.of("/tmp", "rw,exec,nosuid,nodev,mode=1777,size=512m"), host.getTmpFs());
        assertArrayEquals(new Volume[] {new Volume(ContainerFiles.KEY_DIR)}, create.getVolumes());
        // the home on a named volume of its own (a commit would make an anonymous one a VOLUME of the snapshot)
        assertEquals(List.of(workspace, new Bind("dockyard-r1-home", new Volume("/opt/dockyard/home"))),
                List.of(host.getBinds()));
        assertEquals("nofile", host.getUlimits()[0].getName());
        assertEquals(65536L, host.getUlimits()[0].getHardLong());
        assertNull(host.getRuntime());
        assertNull(host.getDeviceRequests());
    }

    @Test
    void shouldLeaveAForeignProgramsRootWritable() {
        HostConfig host = HostConfig.newHostConfig();
        SandboxSpec program = new SandboxSpec("r2", "c2", "cp", "dockyard-r2", "other:1", 1, 1, 1024, 1024, null,
                3000, "key", List.of(), new SandboxProcess(List.of("serve"), null, Map.of(), null), List.of());
        SandboxConfinement.apply(create(), host, program, HARDENED);
        assertNull(host.getReadonlyRootfs());
        assertEquals(65536L, host.getUlimits()[0].getSoftLong());
    }

    @Test
    void shouldGiveARuntimeThatAsksForItAWritableRootOnANodeThatDefaultsToReadOnly() {
        HostConfig host = HostConfig.newHostConfig();
        CreateContainerCmdImpl create = create();
        SandboxConfinement.apply(create, host, executor(new SandboxIsolation(null, null, List.of(), false)), HARDENED);
        assertNull(host.getReadonlyRootfs());
        assertNull(host.getTmpFs());
        assertEquals(0, host.getBinds().length);
        assertEquals(0, create.getVolumes().length);
    }

    @Test
    void shouldMakeTheRootReadOnlyWhenARuntimeAsksOnANodeThatDefaultsToWritable() {
        SandboxHostSettings writable = new SandboxHostSettings(false, Map.of("/tmp", "64m"), 0, null, 0);
        HostConfig byDefault = HostConfig.newHostConfig();
        SandboxConfinement.apply(create(), byDefault, executor(null), writable);
        assertNull(byDefault.getReadonlyRootfs());
        HostConfig asked = HostConfig.newHostConfig();
        SandboxConfinement.apply(create(), asked, executor(new SandboxIsolation(null, null, List.of(), true)), writable);
        assertTrue(asked.getReadonlyRootfs());
        assertEquals("dockyard-r1-home", asked.getBinds()[0].getPath());
    }

    @Test
    void shouldRunGvisorOnRunscAndFallBackToTheNodeDefault() {
        HostConfig asked = HostConfig.newHostConfig();
        SandboxConfinement.apply(create(), asked, executor(new SandboxIsolation("gvisor", null, List.of())), HARDENED);
        assertEquals("runsc", asked.getRuntime());
        // no live update under runsc: the steady CPU limit and weight from the start
        assertEquals(1_000_000_000L, asked.getNanoCPUs());
        assertEquals(SandboxHardening.NORMAL_CPU_SHARES, asked.getCpuShares());

        SandboxHostSettings gvisorNode = new SandboxHostSettings(true, Map.of(), 0, "gvisor", 0);
        HostConfig byNode = HostConfig.newHostConfig();
        SandboxConfinement.apply(create(), byNode, executor(null), gvisorNode);
        assertEquals("runsc", byNode.getRuntime());

        HostConfig runcOnAGvisorNode = HostConfig.newHostConfig();
        SandboxConfinement.apply(create(), runcOnAGvisorNode, executor(new SandboxIsolation("runc", null, List.of())),
                gvisorNode);
        assertEquals("runc", runcOnAGvisorNode.getRuntime());
    }

    @Test
    void shouldAskForGpusAsTheEngineDoesForDockerRunGpus() {
        HostConfig count = HostConfig.newHostConfig();
        SandboxConfinement.apply(create(), count, executor(new SandboxIsolation(null,
                new SandboxIsolation.SandboxGpus(2, List.of()), List.of())), HARDENED);
        DeviceRequest request = count.getDeviceRequests().get(0);
        assertEquals(2, request.getCount());
        assertEquals(List.of(List.of("gpu")), request.getCapabilities());

        HostConfig ids = HostConfig.newHostConfig();
        SandboxConfinement.apply(create(), ids, executor(new SandboxIsolation(null,
                new SandboxIsolation.SandboxGpus(0, List.of("0", "1")), List.of())), HARDENED);
        assertEquals(List.of("0", "1"), ids.getDeviceRequests().get(0).getDeviceIds());
        assertNull(ids.getDeviceRequests().get(0).getCount());
    }
}
