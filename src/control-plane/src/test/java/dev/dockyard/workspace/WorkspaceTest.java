package dev.dockyard.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class WorkspaceTest {

    @Test
    void shouldReadMicroagentsWithTheirFrontMatter() {
        String listing = "\n=====DOCKYARD-MICROAGENT .openhands/microagents/repo.md=====\n"
                + "---\nname: repo-guide\ntype: repo\nagent: CodeActAgent\n---\nUse make test.\n"
                + "\n=====DOCKYARD-MICROAGENT .openhands/microagents/docker.md=====\n"
                + "---\ntriggers:\n  - docker\n  - \"container\"\n---\n# Docker\nNo daemon here.\n"
                + "\n=====DOCKYARD-MICROAGENT .dockyard/microagents/plain.md=====\nJust text.\n";
        List<Microagents.Microagent> agents = Microagents.parse(listing);
        assertEquals(3, agents.size());
        assertEquals("repo-guide", agents.get(0).name());
        assertEquals("repo", agents.get(0).type());
        assertEquals("CodeActAgent", agents.get(0).agent());
        assertEquals("Use make test.", agents.get(0).content());
        assertEquals(List.of("docker", "container"), agents.get(1).triggers());
        assertEquals("knowledge", agents.get(1).type());
        assertEquals("docker", agents.get(1).name());
        assertEquals("# Docker\nNo daemon here.", agents.get(1).content());
        assertEquals("plain", agents.get(2).name());
        assertNull(agents.get(2).agent());
        assertEquals(List.of("a", "b"), Microagents.parse("x.md", "---\ntriggers: [a, 'b']\n---\nbody").triggers());
    }

    @Test
    void shouldRefuseRepositoriesThatWouldLeakOrMisbehave() {
        assertThrows(IllegalArgumentException.class, () -> new RepositorySpec("https://user:tok@host/r.git", null, null, null));
        assertThrows(IllegalArgumentException.class, () -> new RepositorySpec("ssh://host/r.git", null, null, null));
        assertThrows(IllegalArgumentException.class, () -> new RepositorySpec("https://host/r.git", "-x", null, null));
        assertThrows(IllegalArgumentException.class, () -> new RepositorySpec("https://host/r.git", "a..b", null, null));
        assertThrows(IllegalArgumentException.class, () -> new RepositorySpec("https://host/r.git", null, null, "A-B"));
        assertThrows(IllegalArgumentException.class, () -> new RepositorySpec("https://host/a b.git", null, null, null));
        RepositorySpec ok = new RepositorySpec("https://git.example/team/app.git", "main", "feature/x", "GIT_TOKEN");
        assertEquals("/workspace/app", ok.directory("/workspace"));
        assertEquals(ok, RepositorySpec.fromJson(ok.toJson()));
        assertEquals("'it'\\''s'", WorkspaceSetup.quote("it's"));
    }
}
