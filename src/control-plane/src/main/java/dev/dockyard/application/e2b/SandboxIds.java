package dev.dockyard.application.e2b;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * E2B's sandbox ids for Dockyard's runtimes, one for one and without a table: the runtime id
 * without its dash ({@code rt-0123456789abcdef} is sandbox {@code rt0123456789abcdef}). E2B's SDKs
 * build DNS labels from a sandbox id ({@code <port>-<id>.<domain>}), so it must be lowercase
 * letters and digits only, which a runtime id is once its dash is gone.
 */
public final class SandboxIds {

    private static final Pattern SANDBOX_ID = Pattern.compile("rt[0-9a-f]{16}");
    private static final Pattern RUNTIME_ID = Pattern.compile("rt-[0-9a-f]{16}");

    private SandboxIds() {
    }

    /** The sandbox id of a runtime. */
    public static String sandboxId(String runtimeId) {
        if (!RUNTIME_ID.matcher(runtimeId).matches()) {
            throw new IllegalArgumentException("not a runtime id");
        }
        return "rt" + runtimeId.substring(3);
    }

    /** The runtime a sandbox id names; empty for anything not shaped as one (never found, then). */
    public static Optional<String> runtimeId(String sandboxId) {
        if (sandboxId == null || !SANDBOX_ID.matcher(sandboxId).matches()) {
            return Optional.empty();
        }
        return Optional.of("rt-" + sandboxId.substring(2));
    }
}
