package dev.dockyard.images;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.backend.ExecutorServer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RuntimeDockerfileTest {

    @Test
    void shouldInstallExtraDependenciesBeforeTheBundle() {
        String file = RuntimeDockerfile.render("debian:bookworm", new ExtraDependencies(List.of("jq", "curl"),
                "echo 'quoted \"text\"' > /etc/x"), 1000);
        assertTrue(file.startsWith("FROM debian:bookworm\nUSER root\n"), file);
        int apt = file.indexOf("apt-get install -y -q --no-install-recommends curl jq");
        int script = file.indexOf("RUN [\"/bin/sh\", \"-c\", \"echo 'quoted \\\"text\\\"' > /etc/x\"]");
        int bundle = file.indexOf("COPY dockyard/jre /dockyard/jre");
        assertTrue(apt > 0 && script > apt && bundle > script, file);
        assertTrue(file.contains("COPY --chown=1000:1000 dockyard/wlp /dockyard/wlp\n"), file);
        // the embedded executor server's class path, and its AOT cache written there by train-cds
        assertTrue(file.contains("COPY --chown=1000:1000 dockyard/executor /dockyard/executor\n"), file);
        assertTrue(file.endsWith("ENTRYPOINT [\"/dockyard/bin/start-executor\"]\n"), file);
    }

    @Test
    void shouldOnlyAddTheBundleOnAnImageThatHasItsDependencies() {
        String file = RuntimeDockerfile.render("dockyard/runtime:dy_v1_abc", ExtraDependencies.NONE, 1000);
        assertFalse(file.contains("apt-get"), file);
        assertEquals(1, file.lines().filter(l -> l.startsWith("FROM ")).count());
    }

    @Test
    void shouldTrainTheClassArchivesOfTheServersAsked() {
        assertTrue(RuntimeDockerfile.render("b", ExtraDependencies.NONE, 1000)
                .contains("\nRUN /dockyard/bin/train-cds embedded liberty\n"));
        String embedded = RuntimeDockerfile.render("b", ExtraDependencies.NONE, 1000, Set.of(ExecutorServer.EMBEDDED));
        assertTrue(embedded.contains("\nRUN /dockyard/bin/train-cds embedded\n"), embedded);
        // both servers' files are in the image whatever is trained: either still boots
        assertTrue(embedded.contains("COPY --chown=1000:1000 dockyard/wlp /dockyard/wlp\n"), embedded);
        assertThrows(IllegalArgumentException.class,
                () -> RuntimeDockerfile.render("b", ExtraDependencies.NONE, 1000, Set.of()));
    }

    @Test
    void shouldRefuseWhatIsNotAPackageName() {
        for (String bad : List.of("jq; rm -rf /", "$(id)", "Upper", "-o", "a b", "")) {
            assertThrows(IllegalArgumentException.class, () -> RuntimeDockerfile.requireValid(
                    new ExtraDependencies(List.of(bad), "")), bad);
        }
        RuntimeDockerfile.requireValid(new ExtraDependencies(List.of("libc6-dev", "g++", "python3.11", "jq=1.6-2.1"), ""));
    }

    @Test
    void shouldFollowTheBuildSteps() {
        ImageBuild build = new ImageBuild("b", "local", "base", RuntimeImageTags.of("r", "1", "base", "lock", "26",
                ExtraDependencies.NONE, "0123456789abcdef0123"), Instant.EPOCH);
        List<String> heard = new ArrayList<>();
        build.follow(heard::add);
        build.output("Step 3/14 : COPY dockyard/jre /dockyard/jre");
        build.output(" ---> Using cache");
        assertEquals(3, build.step());
        assertEquals(14, build.steps());
        assertEquals(List.of("Step 3/14 : COPY dockyard/jre /dockyard/jre", " ---> Using cache"), heard);
        assertEquals(heard, build.logTail());
    }
}
