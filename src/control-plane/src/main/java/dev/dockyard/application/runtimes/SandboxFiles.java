package dev.dockyard.application.runtimes;

import dev.dockyard.application.ExecutorOutages;
import dev.dockyard.application.Refused;
import dev.dockyard.backend.BackendException;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.executor.ExecutorClient;
import dev.dockyard.workspace.Microagents;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Function;

/** What goes into and comes out of a READY sandbox besides actions: files, trees, microagents. */
@ApplicationScoped
public class SandboxFiles {

    @Inject
    ReadyRuntimes ready;

    @Inject
    ExecutorClient executors;

    @Inject
    ExecutorOutages outages = ExecutorOutages.unobserved();

    @Inject
    Microagents microagents;

    /** A download under way: the zip stream (the caller closes it) and how the executor named it. */
    public record Download(InputStream zip, String contentDisposition, Function<IOException, Refused> broken) {

        /**
         * The refusal for a zip the executor stopped sending before its end, while nothing of the
         * answer has gone out yet: its executor is gone (the engine stopped mid-download, the soak's
         * engine restart, 2026-11-30), so a 503 with Retry-After as the runtime is recovered.
         */
        public Refused brokenOff(IOException e) {
            return broken.apply(e);
        }
    }

    /** Puts an upload (a .zip is unpacked) at {@code destination}; answers the executor's JSON. */
    public String upload(SandboxRuntime runtime, String contentType, InputStream body, String destination,
                         boolean recursive) {
        if (destination == null || !destination.startsWith("/")) {
            throw new Refused(Refused.Reason.VALIDATION, "destination must be an absolute path in the sandbox");
        }
        ExecutorClient.ExecutorAnswer answer;
        // held while the upload writes: a migration starts only once it has landed
        try (ReadyRuntimes.Admitted admitted = ready.admit(runtime)) {
            // the body is read as it goes: a sandbox its node paused is resumed before, not after a refusal
            admitted.awaken();
            SandboxRuntime awake = admitted.runtime();
            answer = executors.upload(URI.create(awake.executorUrl()), awake.sessionKey(), contentType, body,
                    destination, recursive);
        } catch (ExecutorClient.ExecutorUnreachableException e) {
            throw outages.refusal(runtime, e);
        }
        return switch (answer.status()) {
            case 200 -> answer.body();
            case 400 -> throw new Refused(Refused.Reason.VALIDATION, ActionService.detail(answer.body()));
            case 413 -> throw new Refused(Refused.Reason.PAYLOAD_TOO_LARGE, ActionService.detail(answer.body()));
            default -> throw answer.status() >= 500
                    ? outages.serverError(runtime, answer.status(), ActionService.detail(answer.body()))
                    : new Refused(Refused.Reason.EXECUTOR_FAILED, "The executor answered " + answer.status()
                    + ": " + ActionService.detail(answer.body()));
        };
    }

    /** Streams a file or a whole tree out of the sandbox as a zip. */
    public Download download(SandboxRuntime runtime, String path) {
        if (path == null || !path.startsWith("/")) {
            throw new Refused(Refused.Reason.VALIDATION, "path must be an absolute path in the sandbox");
        }
        HttpResponse<InputStream> answer;
        // a read: admitted like any transfer, but the zip streams on after the pass is given back
        try (ReadyRuntimes.Admitted admitted = ready.admit(runtime)) {
            SandboxRuntime awake = admitted.runtime();
            answer = executors.download(URI.create(awake.executorUrl()), awake.sessionKey(), path);
            if (admitted.resumedAfterRefusal(answer.statusCode())) {
                closeQuietly(answer.body());
                answer = executors.download(URI.create(awake.executorUrl()), awake.sessionKey(), path);
            }
        } catch (ExecutorClient.ExecutorUnreachableException e) {
            throw outages.refusal(runtime, e);
        }
        if (answer.statusCode() != 200) {
            String text;
            try (InputStream in = answer.body()) {
                text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                text = "";
            }
            Refused.Reason reason = switch (answer.statusCode()) {
                case 404 -> Refused.Reason.NOT_FOUND;
                case 400 -> Refused.Reason.VALIDATION;
                default -> Refused.Reason.EXECUTOR_FAILED;
            };
            throw new Refused(reason, ActionService.detail(text));
        }
        InputStream zip;
        try {
            zip = ExecutorClient.begun(answer.body());
        } catch (ExecutorClient.ExecutorUnreachableException e) {
            throw outages.refusal(runtime, e);
        }
        return new Download(zip, answer.headers().firstValue("Content-Disposition").orElse("attachment"),
                e -> outages.refusal(runtime, new ExecutorClient.ExecutorUnreachableException(
                        "The sandbox's executor stopped sending the download before its end: " + e, e)));
    }

    /** The microagents of the runtime's repository (none without one), read from the sandbox. */
    public List<Microagents.Microagent> microagents(SandboxRuntime runtime) {
        if (runtime.repository().isEmpty()) {
            ready.admit(runtime).close();
            return List.of();
        }
        try (ReadyRuntimes.Admitted admitted = ready.admit(runtime)) {
            // several reads: the node is asked once before rather than after each
            admitted.awaken();
            SandboxRuntime awake = admitted.runtime();
            return microagents.of(URI.create(awake.executorUrl()), awake.sessionKey(), awake.repository().get());
        } catch (BackendException e) {
            throw new Refused(Refused.Reason.EXECUTOR_FAILED, e.getMessage());
        }
    }

    private static void closeQuietly(InputStream in) {
        try {
            in.close();
        } catch (IOException e) {
            // a refusal's body: nothing in it is needed
        }
    }
}
