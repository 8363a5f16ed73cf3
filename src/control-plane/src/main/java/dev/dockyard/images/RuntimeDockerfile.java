package dev.dockyard.images;

import dev.dockyard.backend.ExecutorServer;
import dev.dockyard.jsonp.Jsonp;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The Dockerfile of a runtime image: its extra dependencies (unless the image it starts from has
 * them already), then the executor bundle under /dockyard, the sandbox user and workspace, and a
 * class archive trained at build time (the JDK 25 AOT cache, or AppCDS on an older JRE). The same
 * steps as docker/sandbox/Dockerfile, which builds the default image from the offline base.
 */
public final class RuntimeDockerfile {

    /** Debian package names (policy §5.6.1), nothing a shell would read otherwise. */
    private static final Pattern APT_PACKAGE = Pattern.compile("[a-z0-9][a-z0-9+.-]{0,99}(=[A-Za-z0-9.+~:-]{1,100})?");

    private RuntimeDockerfile() {
    }

    public static void requireValid(ExtraDependencies extra) {
        for (String name : extra.aptPackages()) {
            if (!APT_PACKAGE.matcher(name).matches()) {
                throw new IllegalArgumentException("'" + name + "' is not an apt package name");
            }
        }
        if (extra.script().length() > 10_000) {
            throw new IllegalArgumentException("the extra dependencies script is longer than 10000 characters");
        }
    }

    /** An image trained for both executor servers, as the default sandbox image is. */
    public static String render(String from, ExtraDependencies extra, int sandboxUid) {
        return render(from, extra, sandboxUid, Set.of(ExecutorServer.values()));
    }

    /**
     * @param from       the image to build on
     * @param extra      the extra dependencies to install, or {@link ExtraDependencies#NONE} when
     *                   {@code from} has them already
     * @param sandboxUid the sandbox user's uid
     * @param trained    the executor servers whose class archive the build trains: a server without
     *                   one still boots, only without its archive (Liberty: seconds more)
     */
    public static String render(String from, ExtraDependencies extra, int sandboxUid, Set<ExecutorServer> trained) {
        if (trained.isEmpty()) {
            throw new IllegalArgumentException("an image is trained for one executor server at least");
        }
        requireValid(extra);
        StringBuilder file = new StringBuilder();
        file.append("FROM ").append(from).append('\n');
        file.append("USER root\n");
        if (!extra.aptPackages().isEmpty()) {
            file.append("RUN export DEBIAN_FRONTEND=noninteractive && apt-get update -q && apt-get install -y -q "
                    + "--no-install-recommends ").append(String.join(" ", extra.aptPackages()))
                    .append(" && rm -rf /var/lib/apt/lists/*\n");
        }
        if (!extra.script().isEmpty()) {
            // as a JSON-form argument: no quoting games between the Dockerfile and the shell
            file.append("RUN [\"/bin/sh\", \"-c\", ").append(jsonString(extra.script())).append("]\n");
        }
        file.append("COPY dockyard/jre /dockyard/jre\n");
        file.append("COPY dockyard/bin /dockyard/bin\n");
        file.append("COPY --chown=").append(sandboxUid).append(':').append(sandboxUid)
                .append(" dockyard/executor /dockyard/executor\n");
        file.append("COPY --chown=").append(sandboxUid).append(':').append(sandboxUid)
                .append(" dockyard/wlp /dockyard/wlp\n");
        file.append("RUN /dockyard/bin/setup-runtime ").append(sandboxUid).append('\n');
        file.append("USER ").append(sandboxUid).append('\n');
        StringBuilder servers = new StringBuilder();
        for (String server : new TreeSet<>(trained.stream().map(ExecutorServer::apiName).toList())) {
            servers.append(' ').append(server);
        }
        file.append("RUN /dockyard/bin/train-cds").append(servers).append('\n');
        file.append("ENV SESSION_API_KEY_FILE=/opt/dockyard/run/session-key\n");
        file.append("WORKDIR /workspace\n");
        file.append("EXPOSE 8000\n");
        file.append("ENTRYPOINT [\"/dockyard/bin/start-executor\"]\n");
        return file.toString();
    }

    private static String jsonString(String s) {
        return Jsonp.createValue(s).toString();
    }
}
