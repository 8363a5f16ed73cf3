package dev.dockyard.runtimeapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.api.Problem;
import dev.dockyard.application.remote.RemoteStart;
import dev.dockyard.backend.EgressPolicy;
import dev.dockyard.backend.ExecutorServer;
import dev.dockyard.backend.SandboxIsolation;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code POST /start} bodies exactly as OpenHands' three clients send them (see openhands-runtime-api notes). */
class StartRequestReaderTest {

    private static JsonObject json(String text) {
        return Json.createReader(new StringReader(text.replace('\'', '"'))).readObject();
    }

    private static String refusal(String body) {
        return assertThrows(Problem.ProblemException.class, () -> StartRequestReader.read(json(body), "http://h:1"))
                .getMessage();
    }

    @Test
    void shouldReadTheAppServersRequest() {
        // openhands/app_server/sandbox/remote_sandbox_service.py: start_request
        RemoteStart start = StartRequestReader.read(json("{'image':'ghcr.io/openhands/agent-server:abc-python',"
                + "'command':['/usr/local/bin/openhands-agent-server','--port','60000'],'working_dir':'/workspace',"
                + "'environment':{'OH_VSCODE_PORT':'60001','LOG_JSON':'true'},'session_id':'3kq9Zx',"
                + "'resource_factor':1,'run_as_user':10001,'run_as_group':10001,'fs_group':10001}"), "http://h:1");
        assertEquals("3kq9Zx", start.sessionId());
        assertEquals(List.of("/usr/local/bin/openhands-agent-server", "--port", "60000"), start.command());
        assertEquals("/workspace", start.workingDir());
        assertEquals(Map.of("OH_VSCODE_PORT", "60001", "LOG_JSON", "true"), start.environment());
        assertEquals("10001:10001", start.user());
        assertEquals(10001L, start.fsGroup());
        assertEquals("http://h:1", start.publicBase());
    }

    @Test
    void shouldRunTheSdksStringCommandThroughAShellAndIgnoreWhatDockerCannotHonour() {
        // openhands-workspace/.../remote_api/workspace.py: payload
        RemoteStart start = StartRequestReader.read(json("{'image':'agent-server:x','command':"
                + "'/usr/local/bin/openhands-agent-server --port 60000','working_dir':'/','environment':{},"
                + "'session_id':'agent-server-1b2c','run_as_user':10001,'fs_group':10001,"
                + "'image_pull_policy':'IfNotPresent','runtime_class':'sysbox-runc'}"), "http://h:1");
        assertEquals(List.of("/bin/sh", "-c", "/usr/local/bin/openhands-agent-server --port 60000"), start.command());
        assertEquals("10001", start.user());
        assertEquals(1, start.resourceFactor());
    }

    @Test
    void shouldAskForGvisorWhenTheClientNamesIt() {
        // the SDK's APIRemoteWorkspace(runtime_class="gvisor"); the legacy runtime's remote_runtime_class
        RemoteStart start = StartRequestReader.read(json("{'image':'a/b:c','session_id':'s1',"
                + "'runtime_class':'gvisor'}"), "http://h:1");
        assertEquals(SandboxIsolation.GVISOR, start.runtimeClass());
    }

    @Test
    void shouldGiveTheDefaultRuntimeForSysboxAndNoRuntimeClass() {
        // the SDK's default "sysbox-runc": no such runtime here, the sandbox runs on the default one
        assertNull(StartRequestReader.read(json("{'image':'a/b:c','session_id':'s1',"
                + "'runtime_class':'sysbox-runc'}"), "http://h:1").runtimeClass());
        assertNull(StartRequestReader.read(json("{'image':'a/b:c','session_id':'s1','runtime_class':null}"),
                "http://h:1").runtimeClass());
        assertNull(StartRequestReader.read(json("{'image':'a/b:c','session_id':'s1'}"), "http://h:1").runtimeClass());
    }

    @Test
    void shouldMapKubernetesRuntimeClassNamesToDockyardsIsolation() {
        assertEquals(SandboxIsolation.GVISOR, StartRequestReader.read(json("{'image':'a/b:c','session_id':'s1',"
                + "'runtime_class':'runsc'}"), "http://h:1").runtimeClass());
        assertEquals(SandboxIsolation.RUNC, StartRequestReader.read(json("{'image':'a/b:c','session_id':'s1',"
                + "'runtime_class':'runc'}"), "http://h:1").runtimeClass());
        assertNull(StartRequestReader.read(json("{'image':'a/b:c','session_id':'s1','runtime_class':'sysbox'}"),
                "http://h:1").runtimeClass());
        String refused = refusal("{'session_id':'s','image':'a','runtime_class':'kata-qemu'}");
        assertTrue(refused.contains("runtime_class must be one of [gvisor, runc, runsc, sysbox, sysbox-runc]"), refused);
    }

    @Test
    void shouldRefuseARuntimeClassThatIsNoString() {
        assertTrue(refusal("{'session_id':'s','image':'a','runtime_class':['gvisor']}").contains("runtime_class"));
    }

    @Test
    void shouldKeepTheImagesOwnCommandWhenNoneIsGiven() {
        RemoteStart start = StartRequestReader.read(json("{'image':'a/b:c','session_id':'s1'}"), "http://h:1");
        assertEquals(List.of(), start.command());
        assertNull(start.workingDir());
        assertNull(start.user());
    }

    @Test
    void shouldTakeDockyardsNodeExtensionAndRefuseAMalformedOne() {
        assertNull(StartRequestReader.read(json("{'image':'a/b:c','session_id':'s1'}"), "http://h:1").node());
        assertEquals("local1", StartRequestReader.read(json("{'image':'a/b:c','session_id':'s1','node':'local1'}"),
                "http://h:1").node());
        assertTrue(refusal("{'session_id':'s','image':'a','node':'../x'}").contains("node"));
        assertTrue(refusal("{'session_id':'s','image':'a','node':7}").contains("node"));
    }

    @Test
    void shouldTakeDockyardsEgressExtensionForTheResourceToRead() {
        RemoteStart start = StartRequestReader.read(json("{'image':'a/b:c','session_id':'s1','network':'allowlist',"
                + "'egress':['10.0.0.1:443']}"), "http://h:1");
        assertNull(start.egress(), "read by the resource, as /api/v1's sandbox.network");
        assertEquals(EgressPolicy.Mode.NONE, start.withEgress(new EgressPolicy(EgressPolicy.Mode.NONE, List.of()))
                .egress().mode());
    }

    @Test
    void shouldTakeDockyardsExecutorServerExtensionAndRefuseAnUnknownOne() {
        assertNull(StartRequestReader.read(json("{'image':'a/b:c','session_id':'s1'}"), "http://h:1")
                .executorServer(), "the node's");
        assertEquals(ExecutorServer.LIBERTY, StartRequestReader.read(json("{'image':'a/b:c','session_id':'s1',"
                + "'executor_server':'liberty'}"), "http://h:1").executorServer());
        assertEquals(ExecutorServer.LIBERTY, StartRequestReader.read(json("{'image':'a/b:c','session_id':'s1',"
                + "'executor_server':'liberty'}"), "http://h:1").withEgress(null).executorServer());
        String refused = refusal("{'image':'a/b:c','session_id':'s1','executor_server':'tomcat'}");
        assertTrue(refused.contains("executor_server 'tomcat' is not one of [embedded, liberty]"), refused);
    }

    @Test
    void shouldTakeAChosenServiceKeyAndRefuseAWeakOneWithoutEchoingIt() {
        String key = "k".repeat(32);
        assertNull(StartRequestReader.read(json("{'image':'a/b:c','session_id':'s1'}"), "http://h:1").serviceKey());
        RemoteStart start = StartRequestReader.read(json("{'image':'a/b:c','session_id':'s1','session_api_key':'" + key
                + "'}"), "http://h:1");
        assertEquals(key, start.serviceKey());
        assertFalse(start.toString().contains(key), start.toString());
        String refused = refusal("{'session_id':'s','image':'a','session_api_key':'short-secret'}");
        assertTrue(refused.contains("session_api_key"), refused);
        assertFalse(refused.contains("short-secret"), refused);
    }

    @Test
    void shouldRefuseMalformedMembersNamingThem() {
        assertTrue(refusal("{'image':'a/b'}").contains("session_id"));
        assertTrue(refusal("{'session_id':'s'}").contains("image"));
        assertTrue(refusal("{'session_id':'s','image':'a','command':[1]}").contains("command"));
        assertTrue(refusal("{'session_id':'s','image':'a','environment':{'1X':'y'}}").contains("1X"));
        assertTrue(refusal("{'session_id':'s','image':'a','resource_factor':3}").contains("resource_factor"));
        assertTrue(refusal("{'session_id':'s','image':'a','working_dir':'relative'}").contains("working_dir"));
        assertTrue(refusal("{'session_id':'s','image':'a','run_as_user':-1}").contains("run_as_user"));
        assertTrue(refusal("{'session_id':'../x','image':'a'}").contains("session_id"));
        assertTrue(refusal("{'session_id':'s','image':'a','resource_factor':4294967297}").contains("resource_factor"));
    }

    @Test
    void shouldRefuseUnknownMembersNamingThemAndTheNearestKnownOne() {
        String detail = refusal("{'session_id':'s','image':'a','something_new':1,'sesion_id':'t'}");
        assertTrue(detail.contains("something_new"), detail);
        assertTrue(detail.contains("sesion_id (did you mean session_id?)"), detail);
    }

    @Test
    void shouldRefuseSessionIdsOutsideTheSafeAlphabet() {
        for (String id : new String[] {"a/b", "a..b", "a\\u202Eb", "a b", "x".repeat(201)}) {
            assertTrue(refusal("{'session_id':'" + id + "','image':'a'}").contains("session_id"), id);
        }
    }
}
