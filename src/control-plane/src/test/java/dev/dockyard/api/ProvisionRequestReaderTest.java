package dev.dockyard.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.agents.AgentCatalog;
import dev.dockyard.agents.AgentProfile;
import dev.dockyard.agents.LlmSettings;
import dev.dockyard.backend.EgressPolicy;
import dev.dockyard.backend.ExecutorServer;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.runtime.provisioning.ProvisioningRequest;
import dev.dockyard.security.SecurityPolicy;
import dev.dockyard.tenancy.Role;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ProvisionRequestReaderTest {

    private final DockyardConfig config = new DockyardConfig() {
        @Override public Optional<String> bootstrapAdminKey() { return Optional.empty(); }
        @Override public String sandboxImage() { return "dockyard/sandbox:latest"; }
        @Override public String sandboxBrowserImage() { return "dockyard/sandbox-browser:latest"; }
        @Override public double sandboxCpus() { return 1.0; }
        @Override public int sandboxMemoryMb() { return 1024; }
        @Override public Duration sandboxTimeout() { return Duration.ofSeconds(120); }
        @Override public double maxCpus() { return 8; }
        @Override public int maxMemoryMb() { return 16384; }
        @Override public int maxDiskMb() { return 8192; }
        @Override public Set<String> sandboxAllowedNetworks() { return Set.of("lab"); }
    };

    private final AgentCatalog agents = new AgentCatalog() {
        @Override
        public Optional<AgentProfile> find(String name) {
            if (name.equals("LintingAgent")) {
                return Optional.of(new AgentProfile(name, new LlmSettings(null, null, null), "workspace",
                        SecurityPolicy.DEFAULT, List.of(), true));
            }
            return name.equals("CodeActAgent") ? Optional.of(new AgentProfile(name,
                    new LlmSettings("default-model", null, null), "workspace",
                    SecurityPolicy.DEFAULT, List.of())) : Optional.empty();
        }

        @Override
        public String defaultAgent() {
            return "CodeActAgent";
        }

        @Override
        public List<String> names() {
            return List.of("CodeActAgent");
        }
    };

    private static JsonObject json(String text) {
        try (var reader = Json.createReader(new StringReader(text))) {
            return reader.readObject();
        }
    }

    private ProvisioningRequest read(String text) {
        return ProvisionRequestReader.read(json(text), "alice", Role.USER, config, agents);
    }

    private Problem problem(String text) {
        return assertThrows(Problem.ProblemException.class, () -> read(text)).problem();
    }

    @Test
    void shouldApplyDefaultsToAMinimalRequest() {
        ProvisioningRequest r = read("{\"conversationId\":\"conv-42\"}");
        assertEquals("alice", r.userId());
        assertEquals("conv-42", r.conversationId());
        assertEquals("dockyard/sandbox:latest", r.image());
        assertEquals(1.0, r.cpus());
        assertEquals(1024, r.memoryMb());
        assertEquals(120, r.timeoutSeconds());
        assertEquals(Map.of(), r.environment());
    }

    @Test
    void shouldTakeEverySandboxSetting() {
        ProvisioningRequest r = read("""
                {"conversationId":"c","agent":"CodeActAgent","llm":{"model":"m"},
                 "sandbox":{"image":"registry.local:5000/team/img:1.2","cpus":2.5,"memoryMb":2048,
                 "timeoutSeconds":30,"env":{"K":"V"},"plugins":[],"keepAlive":true},"replace":false}""");
        assertEquals("registry.local:5000/team/img:1.2", r.image());
        assertEquals(2.5, r.cpus());
        assertEquals(2048, r.memoryMb());
        assertEquals(30, r.timeoutSeconds());
        assertEquals(Map.of("K", "V"), r.environment());
    }

    @Test
    void shouldTellTheSandboxToLintEditsAsOpenHandsDoesWhenAskedOrWhenTheAgentDoes() {
        assertEquals(Map.of("ENABLE_AUTO_LINT", "true"),
                read("{\"conversationId\":\"c\",\"sandbox\":{\"enableAutoLint\":true}}").environment());
        assertEquals(Map.of(), read("{\"conversationId\":\"c\",\"sandbox\":{\"enableAutoLint\":false}}")
                .environment());
        assertEquals(Map.of(), read("{\"conversationId\":\"c\"}").environment(), "off by default");
        assertEquals(Map.of("ENABLE_AUTO_LINT", "true"),
                read("{\"conversationId\":\"c\",\"agent\":\"LintingAgent\"}").environment(), "the agent's default");
        assertEquals(Map.of(), read("{\"conversationId\":\"c\",\"agent\":\"LintingAgent\","
                + "\"sandbox\":{\"enableAutoLint\":false}}").environment(), "the request overrides the agent");
    }

    @Test
    void shouldRefuseAnEnableAutoLintThatIsNotABoolean() {
        Problem p = problem("{\"conversationId\":\"c\",\"sandbox\":{\"enableAutoLint\":\"yes\"}}");
        assertEquals(400, p.kind().status());
        assertEquals("sandbox.enableAutoLint must be a boolean", p.detail());
    }

    @Test
    void shouldTakeTheIdleLifecycleAndDefaultItFromConfiguration() {
        ProvisioningRequest r = read("""
                {"conversationId":"c","sandbox":{"keepAlive":true,"idleTimeoutSeconds":120,"ttlSeconds":3600}}""");
        assertEquals(new ProvisioningRequest.Lifecycle(true, 120, 3600), r.lifecycle());
        assertEquals(new ProvisioningRequest.Lifecycle(false, 0, 0), read("{\"conversationId\":\"c\"}").lifecycle(),
                "the configured defaults: never idle-paused, no TTL");

        assertTrue(problem("{\"conversationId\":\"c\",\"sandbox\":{\"keepAlive\":\"yes\"}}").detail()
                .contains("sandbox.keepAlive must be a boolean"));
        assertTrue(problem("{\"conversationId\":\"c\",\"sandbox\":{\"idleTimeoutSeconds\":-1}}").detail()
                .contains("sandbox.idleTimeoutSeconds"));
        assertTrue(problem("{\"conversationId\":\"c\",\"sandbox\":{\"ttlSeconds\":1.5}}").detail()
                .contains("sandbox.ttlSeconds"));
        assertTrue(problem("{\"conversationId\":\"c\",\"sandbox\":{\"ttlSeconds\":99999999}}").detail()
                .contains("sandbox.ttlSeconds must be between 0 (none) and"));
    }

    @Test
    void shouldTakeTheConfinementFieldsOfTheSandbox() {
        ProvisioningRequest r = read("""
                {"conversationId":"c","sandbox":{"network":"allowlist","egress":["10.9.8.7:8080"],
                 "runtimeClass":"gvisor","readOnlyRoot":false}}""");
        assertEquals(EgressPolicy.Mode.ALLOWLIST, r.egress().mode());
        assertEquals("gvisor", r.isolation().runtimeClass());
        assertEquals(Boolean.FALSE, r.isolation().readOnlyRoot());
        assertEquals(List.of("lab"), read("""
                {"conversationId":"c","sandbox":{"networks":["lab"]}}""").isolation().networks());
    }

    @Test
    void shouldTakeTheExecutorServerAskedForAndLeaveItToTheNodeOtherwise() {
        assertEquals(ExecutorServer.LIBERTY, read("""
                {"conversationId":"c","sandbox":{"executorServer":"liberty"}}""").executorServer());
        assertEquals(ExecutorServer.EMBEDDED, read("""
                {"conversationId":"c","sandbox":{"executorServer":"embedded"}}""").executorServer());
        // null: the node's setting, settled where the runtime is placed
        assertNull(read("{\"conversationId\":\"c\"}").executorServer());
        assertNull(read("""
                {"conversationId":"c","sandbox":{"executorServer":null}}""").executorServer());
    }

    @Test
    void shouldRefuseAnUnknownExecutorServerWithA400NamingTheFieldAndTheKnownOnes() {
        Problem unknown = problem("""
                {"conversationId":"c","sandbox":{"executorServer":"tomcat"}}""");
        assertEquals(Problem.Kind.VALIDATION, unknown.kind());
        assertEquals(400, unknown.kind().status());
        assertEquals("sandbox.executorServer 'tomcat' is not one of [embedded, liberty]", unknown.detail());
        assertEquals("sandbox.executorServer 'Liberty' is not one of [embedded, liberty]", problem("""
                {"conversationId":"c","sandbox":{"executorServer":"Liberty"}}""").detail());
        assertEquals("sandbox.executorServer must be a string", problem("""
                {"conversationId":"c","sandbox":{"executorServer":true}}""").detail());
    }

    @Test
    void shouldRefuseAnExtraNetworkBesideAnEgressPolicyOfItsOwn() {
        Problem p = problem("""
                {"conversationId":"c","sandbox":{"network":"none","networks":["lab"]}}""");
        assertEquals(Problem.Kind.VALIDATION, p.kind());
        assertTrue(p.detail().contains("sandbox.networks"), p.detail());
        assertTrue(p.detail().contains("'none'"), p.detail());
    }

    @Test
    void shouldNameTheFieldOfEveryMistake() {
        assertTrue(problem("{}").detail().contains("conversationId is required"));
        assertEquals(Problem.Kind.VALIDATION, problem("{\"conversationId\":5}").kind());
        assertTrue(problem("{\"conversationId\":\"c\",\"sandbox\":{\"cpus\":0}}").detail().contains("sandbox.cpus"));
        assertTrue(problem("{\"conversationId\":\"c\",\"sandbox\":{\"memoryMb\":64}}").detail().contains("sandbox.memoryMb"));
        assertTrue(problem("{\"conversationId\":\"c\",\"sandbox\":{\"memoryMb\":1.5}}").detail().contains("sandbox.memoryMb"));
        assertTrue(problem("{\"conversationId\":\"c\",\"sandbox\":{\"image\":\"UPPER/case\"}}").detail().contains("sandbox.image"));
        assertTrue(problem("{\"conversationId\":\"c\",\"sandbox\":{\"env\":{\"1BAD\":\"x\"}}}").detail().contains("1BAD"));
        assertTrue(problem("{\"conversationId\":\"c\",\"sandbox\":{\"env\":{\"K\":1}}}").detail().contains("sandbox.env.K"));
        assertEquals(Problem.Kind.VALIDATION, problem("{\"conversationId\":\"a\\u0000b\"}").kind());
        assertEquals(Problem.Kind.VALIDATION, problem("{\"conversationId\":\"c\",\"sandbox\":[]}").kind());
    }

    @Test
    void shouldTakeANamedNodeButNotWithAWorkspaceOrSnapshotThatLiveOnTheirOwn() {
        assertEquals("node2", read("{\"conversationId\":\"c\",\"node\":\"node2\"}").workspace().node());
        assertEquals(null, read("{\"conversationId\":\"c\"}").workspace().node(), "placement chooses");
        assertTrue(problem("{\"conversationId\":\"c\",\"node\":\"Node 2\"}").detail().startsWith("node must be"));
        assertTrue(problem("{\"conversationId\":\"c\",\"node\":\"node2\",\"workspace\":\"ws-1\"}").detail()
                .startsWith("node cannot be given with workspace or fromSnapshot"));
    }

    @Test
    void shouldReadPluginsAndRefuseTheOnesItCannotStartAndReadReplace() {
        assertEquals(List.of("jupyter"),
                read("{\"conversationId\":\"c\",\"sandbox\":{\"plugins\":[\"jupyter\"]}}").plugins());
        // the browser plugin brings its image variant, unless the request names an image
        assertEquals("dockyard/sandbox-browser:latest",
                read("{\"conversationId\":\"c\",\"sandbox\":{\"plugins\":[\"browser\"]}}").image());
        assertEquals("my/image:1", read("{\"conversationId\":\"c\",\"sandbox\":{\"plugins\":[\"browser\"],"
                + "\"image\":\"my/image:1\"}}").image());
        Problem chrome = problem("{\"conversationId\":\"c\",\"sandbox\":{\"plugins\":[\"chrome\"]}}");
        assertEquals(Problem.Kind.VALIDATION, chrome.kind());
        assertTrue(chrome.detail().contains("[jupyter, browser]"), chrome.detail());
        assertEquals(Problem.Kind.VALIDATION, problem("{\"conversationId\":\"c\",\"sandbox\":{\"plugins\":\"jupyter\"}}").kind());
        assertTrue(read("{\"conversationId\":\"c\",\"replace\":true}").replace());
        assertEquals(false, read("{\"conversationId\":\"c\"}").replace());
        assertEquals(Problem.Kind.VALIDATION, problem("{\"conversationId\":\"c\",\"replace\":\"yes\"}").kind());
    }

    @Test
    void shouldBuildLlmSettingsOverTheAgentsDefaultsAndRefuseUnknownAgents() {
        ProvisioningRequest defaults = read("{\"conversationId\":\"c\"}");
        assertEquals("CodeActAgent", defaults.agent().name());
        assertEquals("default-model", defaults.llm().model());
        ProvisioningRequest own = read("{\"conversationId\":\"c\",\"llm\":{\"model\":\"m2\",\"apiKey\":\"sk-x\"}}");
        assertEquals("m2", own.llm().model());
        assertEquals("sk-x", own.llm().apiKey());
        assertTrue(!own.toString().contains("sk-x"), "a request never prints its secrets: " + own);
        Problem unknown = problem("{\"conversationId\":\"c\",\"agent\":\"Nope\"}");
        assertEquals("agent 'Nope' is not known; known agents: [CodeActAgent]", unknown.detail());
    }

    @Test
    void shouldReadPreferWait() {
        assertEquals(0, RuntimeResource.preferredWait(null));
        assertEquals(30, RuntimeResource.preferredWait("wait=30"));
        assertEquals(5, RuntimeResource.preferredWait("respond-async, wait=5"));
        assertEquals(600, RuntimeResource.preferredWait("wait=9999"));
        assertEquals(0, RuntimeResource.preferredWait("return=minimal"));
    }

    @Test
    void shouldReadTheDiskSizeAndAKeptWorkspaceOrASnapshotById() {
        assertEquals(0, read("{\"conversationId\": \"c\"}").workspace().diskMb(), "0: the default size");
        assertEquals(512, read("{\"conversationId\": \"c\", \"sandbox\": {\"diskMb\": 512}}").workspace().diskMb());
        assertEquals("ws-1", read("{\"conversationId\": \"c\", \"workspace\": \"ws-1\"}").workspace().keptWorkspace());
        assertEquals("snap-1", read("{\"conversationId\": \"c\", \"fromSnapshot\": \"snap-1\"}").workspace()
                .fromSnapshot());
    }

    @Test
    void shouldRefuseADiskOutsideItsBoundsAndTwoWorkspacesAtOnce() {
        for (String body : List.of("{\"conversationId\": \"c\", \"sandbox\": {\"diskMb\": 10}}",
                "{\"conversationId\": \"c\", \"sandbox\": {\"diskMb\": 9000}}",
                "{\"conversationId\": \"c\", \"sandbox\": {\"diskMb\": \"big\"}}",
                "{\"conversationId\": \"c\", \"workspace\": \"ws-1\", \"fromSnapshot\": \"snap-1\"}",
                "{\"conversationId\": \"c\", \"workspace\": \"ws-1\", \"sandbox\": {\"diskMb\": 512}}",
                "{\"conversationId\": \"c\", \"workspace\": 7}",
                "{\"conversationId\": \"c\", \"fromSnapshot\": \" \"}")) {
            Problem problem = problem(body);
            assertEquals(Problem.Kind.VALIDATION, problem.kind(), body);
            assertTrue(problem.detail().contains("diskMb") || problem.detail().contains("workspace")
                    || problem.detail().contains("fromSnapshot"), problem.detail());
        }
    }

    @Test
    void shouldRefuseUnknownFieldNamingItAndSuggestingTheKnownOne() {
        Problem p = problem("{\"conversationId\":\"c\",\"sandbox\":{\"memoryMB\":4096}}");
        assertEquals(400, p.kind().status());
        assertTrue(p.detail().contains("sandbox.memoryMB (did you mean sandbox.memoryMb?)"), p.detail());
        JsonObject json = p.toJson();
        assertEquals("[\"sandbox.memoryMB\"]", json.get("unknownFields").toString());
        assertEquals("sandbox.memoryMb", json.getJsonObject("suggestions").getString("sandbox.memoryMB"));
    }

    @Test
    void shouldRefuseUnknownFieldsAtEveryLevel() {
        assertTrue(problem("{\"conversationId\":\"c\",\"conversationID\":\"d\"}").detail()
                .contains("conversationID"));
        assertTrue(problem("{\"conversationId\":\"c\",\"llm\":{\"api_key\":\"k\"}}").detail()
                .contains("llm.api_key"));
        assertTrue(problem("{\"conversationId\":\"c\",\"repository\":{\"url\":\"https://x/y.git\",\"ref\":1}}")
                .detail().contains("repository.ref"));
        assertTrue(problem("{\"conversationId\":\"c\",\"sandbox\":{\"extraDeps\":{\"pip\":[]}}}").detail()
                .contains("sandbox.extraDeps.pip"));
    }

    @Test
    void shouldRefuseConversationIdsOutsideTheSafeAlphabet() {
        for (String id : new String[] {"../etc", "a/b", "a..b", "\\u202Econv", "conv\\u2066", "caf\\u00e9", " lead",
                "x".repeat(201), "\\ud800"}) {
            Problem p = problem("{\"conversationId\":\"" + id + "\"}");
            assertTrue(p.detail().startsWith("conversationId must be an id"), id + ": " + p.detail());
        }
    }

    @Test
    void shouldRefuseWrongTypesNamingTheField() {
        assertTrue(problem("{\"conversationId\":\"c\",\"sandbox\":{\"memoryMb\":\"lots\"}}").detail()
                .contains("memoryMb"));
        assertTrue(problem("{\"conversationId\":\"c\",\"sandbox\":{\"cpus\":1e400}}").detail().contains("cpus"));
        assertTrue(problem("{\"conversationId\":\"c\",\"sandbox\":[]}").detail().contains("sandbox"));
        assertTrue(problem("{\"conversationId\":\"c\",\"replace\":\"yes\"}").detail().contains("replace"));
        assertTrue(problem("{\"conversationId\":7}").detail().contains("conversationId"));
    }
}
