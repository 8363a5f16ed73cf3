package dev.dockyard.backend.docker;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Where a sandbox's published ports listen on the engine's host: a loopback address of its own,
 * in 127.1.0.1–127.254.255.254, chosen from its name. The control plane keeps each runtime's
 * address and port between its calls, and a port once freed is free for anyone: with every sandbox
 * on 127.0.0.1, a sandbox that stopped (its engine restarted, say) left its port to whichever
 * sandbox got it next, on that engine or on another engine of the same host, and the calls meant
 * for the stopped one reached the other (the soak of 2026-11-30 21:22: actions answered by another
 * sandbox's executor, "Invalid API Key", after an engine restart). On an address of its own,
 * practically only the same sandbox listens there again (two given sandboxes share an address
 * once in 16 million; and the key is sent only where the container publishes now,
 * {@code DockerBackend#listensAt}); and engines sharing a host no longer pick the same port on the
 * same address ("bind: address already in use"). Linux routes all of 127.0.0.0/8 to the loopback;
 * an engine whose host could not bind such an address would refuse the sandbox's start, saying so.
 */
final class SandboxAddresses {

    /** Where the sandboxes made before their addresses were their own listen. */
    static final String SHARED = "127.0.0.1";

    private SandboxAddresses() {
    }

    /** The loopback address of the sandbox named {@code sandboxName}: the same for the same name. */
    static String of(String sandboxName) {
        byte[] digest;
        try {
            digest = MessageDigest.getInstance("SHA-256").digest(sandboxName.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
        // 254 × 256 × 254 addresses: never 127.0.x.x (127.0.0.1 is everyone's), nor a .0 or .255 host
        int second = 1 + Byte.toUnsignedInt(digest[0]) % 254;
        int third = Byte.toUnsignedInt(digest[1]);
        int fourth = 1 + Byte.toUnsignedInt(digest[2]) % 254;
        return "127." + second + "." + third + "." + fourth;
    }

    /** The address a published port listens on, as the engine reports it: blank or a wildcard is {@link #SHARED}. */
    static String host(String reported) {
        return reported == null || reported.isBlank() || reported.equals("0.0.0.0") || reported.equals("::")
                ? SHARED : reported;
    }
}
