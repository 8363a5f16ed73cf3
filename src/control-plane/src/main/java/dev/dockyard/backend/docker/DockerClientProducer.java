package dev.dockyard.backend.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.core.DefaultDockerClientConfig;
import com.github.dockerjava.core.DockerClientImpl;
import com.github.dockerjava.zerodep.ZerodepDockerHttpClient;
import dev.dockyard.config.DockyardConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import java.io.IOException;
import java.time.Duration;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One Docker client per application: the zero-dependency transport (no Jersey, which would clash
 * with Liberty's own), a connection pool sized for concurrent provisioning.
 */
@ApplicationScoped
public class DockerClientProducer {

    private static final Logger LOG = Logger.getLogger(DockerClientProducer.class.getName());

    @Produces
    @ApplicationScoped
    DockerClient dockerClient(DockyardConfig config) {
        DefaultDockerClientConfig.Builder builder = DefaultDockerClientConfig.createDefaultConfigBuilder();
        config.dockerHost().ifPresent(builder::withDockerHost);
        DefaultDockerClientConfig clientConfig = builder.build();
        ZerodepDockerHttpClient http = new ZerodepDockerHttpClient.Builder()
                .dockerHost(clientConfig.getDockerHost())
                .sslConfig(clientConfig.getSSLConfig())
                .maxConnections(64)
                .connectionTimeout(Duration.ofSeconds(5))
                .responseTimeout(Duration.ofSeconds(60))
                .build();
        LOG.info("Docker endpoint: " + clientConfig.getDockerHost());
        return DockerClientImpl.getInstance(clientConfig, http);
    }

    void close(@Disposes DockerClient client) {
        try {
            client.close();
        } catch (IOException e) {
            LOG.log(Level.FINE, "closing the Docker client", e);
        }
    }
}
