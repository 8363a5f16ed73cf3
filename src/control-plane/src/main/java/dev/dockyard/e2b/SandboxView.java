package dev.dockyard.e2b;

import dev.dockyard.application.e2b.SandboxIds;
import dev.dockyard.application.e2b.SandboxState;
import dev.dockyard.backend.EgressPolicy;
import dev.dockyard.jsonp.Jsonp;
import dev.dockyard.runtime.EndAction;
import dev.dockyard.runtime.RuntimeMetadata;
import dev.dockyard.runtime.SandboxRuntime;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;

/**
 * E2B's objects of a runtime: {@code Sandbox} (what create and connect answer), {@code SandboxDetail}
 * ({@code getInfo}) and {@code ListedSandbox} (lists), with every member E2B's SDKs require (Python
 * raises on a missing one, JS on an {@code envdVersion} that is not {@code X.Y.Z}). Times are
 * RFC 3339. {@code envdAccessToken} is the runtime's service key, which the service proxy takes in
 * {@code X-Access-Token}; no {@code domain} (null: the SDK's own, or {@code E2B_SANDBOX_URL}) and no
 * traffic token (the proxy always asks for the access token).
 */
final class SandboxView {

    /** The envd version the SDKs are told: E2B's current one, which puts them on their standard paths. */
    static final String ENVD_VERSION = "0.6.13";
    /** E2B's deprecated but required {@code clientID}. */
    static final String CLIENT_ID = "dockyard";

    private SandboxView() {
    }

    /** {@code Sandbox}. */
    static JsonObject sandbox(SandboxRuntime runtime) {
        JsonObjectBuilder json = common(runtime);
        if (runtime.serviceKey() != null) {
            json.add("envdAccessToken", runtime.serviceKey());
        }
        return json.addNull("domain").addNull("trafficAccessToken").build();
    }

    /** {@code SandboxDetail}; {@code defaultDiskMb} is the workspace size of a runtime that asked for none. */
    static JsonObject detail(SandboxRuntime runtime, int defaultDiskMb) {
        JsonObjectBuilder json = listed(runtime, defaultDiskMb);
        if (runtime.serviceKey() != null) {
            json.add("envdAccessToken", runtime.serviceKey());
        }
        return json.add("allowInternetAccess", runtime.egress().mode() != EgressPolicy.Mode.NONE)
                .add("lifecycle", Jsonp.createObjectBuilder()
                        .add("onTimeout", runtime.atEnd() == EndAction.PAUSE ? "pause" : "kill")
                        .add("autoResume", false))
                .addNull("domain").build();
    }

    /** {@code ListedSandbox}. */
    static JsonObject listedSandbox(SandboxRuntime runtime, int defaultDiskMb) {
        return listed(runtime, defaultDiskMb).build();
    }

    private static JsonObjectBuilder listed(SandboxRuntime runtime, int defaultDiskMb) {
        JsonObjectBuilder metadata = Jsonp.createObjectBuilder();
        runtime.metadata().values().forEach(metadata::add);
        int diskMb = runtime.workspace().diskMb();
        return common(runtime)
                .add("startedAt", runtime.createdAt().toString())
                .add("endAt", runtime.endsAt().orElse(runtime.createdAt()).toString())
                .add("cpuCount", (int) Math.ceil(runtime.cpus()))
                .add("memoryMB", runtime.memoryMb())
                .add("diskSizeMB", diskMb > 0 ? diskMb : defaultDiskMb)
                .add("state", SandboxState.of(runtime.status()).map(SandboxState::apiName)
                        .orElse(SandboxState.RUNNING.apiName()))
                .add("metadata", metadata)
                .add("volumeMounts", Jsonp.createArrayBuilder());
    }

    private static JsonObjectBuilder common(SandboxRuntime runtime) {
        RuntimeMetadata metadata = runtime.metadata();
        return Jsonp.createObjectBuilder()
                .add("sandboxID", SandboxIds.sandboxId(runtime.id()))
                .add("templateID", metadata.template() == null ? "" : metadata.template())
                .add("clientID", CLIENT_ID)
                .add("envdVersion", ENVD_VERSION);
    }
}
