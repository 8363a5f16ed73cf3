package dev.dockyard.runtimeapi;

import dev.dockyard.application.remote.RemoteRuntimes;
import dev.dockyard.jsonp.Jsonp;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.config.ServiceUrls;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;

/**
 * OpenHands' runtime object. One shape for every answer (its clients index some members without
 * a default: {@code runtime_id}, {@code session_api_key}, {@code pod_status}), values lower case.
 * {@code status} says what OpenHands' app server takes as the truth ({@code running} only once the
 * main port answers, which is when Dockyard calls a runtime READY); {@code pod_status} is the
 * Kubernetes-like word its legacy clients poll for.
 */
final class RemoteRuntimeView {

    private RemoteRuntimeView() {
    }

    /** {@code status} and {@code pod_status} of a Dockyard status. */
    record Status(String status, String podStatus) {
    }

    static Status status(SandboxRuntime runtime) {
        return switch (runtime.status()) {
            case STARTING_RUNTIME, BUILDING_RUNTIME -> new Status("starting", "pending");
            case RUNTIME_STARTED -> new Status("starting", "running");
            case READY -> new Status("running", "ready");
            // hibernated is paused to OpenHands: /resume wakes it
            case PAUSED, HIBERNATED -> new Status("paused", "not found");
            case STOPPED -> new Status("stopped", "not found");
            // being recovered (its sandbox started again, its node waited for): OpenHands' clients poll
            // on while the pod is pending, and give up on "unknown"; released after the grace, it is failed
            case ERROR_RUNTIME_DISCONNECTED -> new Status("running", "pending");
            case ERROR -> new Status("error", "failed");
        };
    }

    /**
     * @param base the public base of service URLs ({@link ServiceUrls}): in path mode the runtime's
     *             URL is {@code {base}/{runtime id}} (path mode of OpenHands' _build_service_url), in
     *             subdomain mode a host of its own
     */
    static JsonObject of(SandboxRuntime runtime, String base) {
        String url = ServiceUrls.runtimeUrl(base, runtime.id());
        Status status = status(runtime);
        JsonObjectBuilder workHosts = Jsonp.createObjectBuilder();
        Integer work1 = runtime.servicePorts().get(RemoteRuntimes.WORK_1);
        Integer work2 = runtime.servicePorts().get(RemoteRuntimes.WORK_2);
        if (work1 != null) {
            workHosts.add(ServiceUrls.serviceUrl(base, runtime.id(), RemoteRuntimes.WORK_1), work1);
        }
        if (work2 != null) {
            workHosts.add(ServiceUrls.serviceUrl(base, runtime.id(), RemoteRuntimes.WORK_2), work2);
        }
        JsonObjectBuilder json = Jsonp.createObjectBuilder()
                .add("runtime_id", runtime.id())
                .add("id", runtime.id())
                .add("session_id", runtime.conversationId())
                .add("url", url)
                .add("status", status.status())
                .add("pod_status", status.podStatus())
                .add("restart_count", 0)
                .add("restart_reasons", Jsonp.createArrayBuilder())
                .add("work_hosts", workHosts)
                .add("image", runtime.image());
        if (runtime.serviceKey() == null) {
            json.addNull("session_api_key");
        } else {
            json.add("session_api_key", runtime.serviceKey());
        }
        if (runtime.statusMessage() != null && (runtime.status().name().startsWith("ERROR"))) {
            json.add("status_message", runtime.statusMessage());
        }
        return json.build();
    }
}
