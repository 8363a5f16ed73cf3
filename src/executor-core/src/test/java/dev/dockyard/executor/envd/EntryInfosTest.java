package dev.dockyard.executor.envd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Go's FileMode as envd reports it, and whom and where a call acts as. */
class EntryInfosTest {

    @TempDir
    Path dir;

    @Test
    void shouldPrintModesAsGosFileModeString() {
        assertEquals("drwxr-xr-x", EntryInfos.permissionString(EntryInfos.goFileMode(0040755)));
        assertEquals("-rw-r--r--", EntryInfos.permissionString(EntryInfos.goFileMode(0100644)));
        assertEquals("Lrwxrwxrwx", EntryInfos.permissionString(EntryInfos.goFileMode(0120777)));
        assertEquals("dtrwxrwxrwx", EntryInfos.permissionString(EntryInfos.goFileMode(0041777)), "/tmp: sticky");
        assertEquals("urwxr-xr-x", EntryInfos.permissionString(EntryInfos.goFileMode(0104755)), "setuid");
        assertEquals("Dcrw-rw-rw-", EntryInfos.permissionString(EntryInfos.goFileMode(0020666)), "/dev/null");
        assertEquals("prw-------", EntryInfos.permissionString(EntryInfos.goFileMode(0010600)), "a FIFO");
        assertEquals(0x80000000 | 0755, EntryInfos.goFileMode(0040755));
    }

    @Test
    void shouldNameTheExecutorsUserByE2bsNamesAndResolveFromItsHome() throws IOException {
        Path home = Files.createDirectories(dir.resolve("home"));
        Path e2bHome = dir.resolve("home-user");
        EnvdUsers users = new EnvdUsers("dockyard", false, home, e2bHome);
        assertEquals(home, users.named(null).home(), "no /home/user: the executor's HOME");
        Files.createDirectories(e2bHome);
        assertEquals(e2bHome, users.named("user").home(), "E2B's user prefers /home/user");
        assertEquals(e2bHome, users.fromAuthorization(null).home(), "no header: E2B's default user");
        assertEquals(home, users.named("dockyard").home());
        assertEquals(home.resolve("a/b"), EnvdUsers.resolve(users.named("dockyard"), "a/b"));
        assertEquals(home.resolve("x"), EnvdUsers.resolve(users.named("dockyard"), "~/x"));
        assertEquals(Path.of("/etc/hosts"), EnvdUsers.resolve(users.named("dockyard"), "/etc/hosts"));
        String root = "Basic " + Base64.getEncoder().encodeToString("root:".getBytes(StandardCharsets.UTF_8));
        ConnectError refused = assertThrows(ConnectError.class, () -> users.fromAuthorization(root));
        assertEquals("unauthenticated", refused.code());
        assertEquals("invalid username: 'root'", refused.getMessage(), "root only when the executor is root");
        assertEquals("root", new EnvdUsers("root", true, home, e2bHome).fromAuthorization(root).name());
    }
}
