package dev.dockyard.security;

import dev.dockyard.protocol.SecurityRisk;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Where a write lands, seen from the sandbox. The container is the boundary: a write that stays in
 * the sandbox's own filesystem (its workspace, /tmp, /usr/local, /opt, even /etc/hosts) cannot
 * harm anything outside it, so it is LOW, or MEDIUM where it changes the sandbox's own system.
 * HIGH is kept for the files through which a write reaches beyond the container (raw devices,
 * the kernel's /proc and /sys, a container engine's socket) and for accounts, sudoers and
 * scheduled jobs (privilege inside the sandbox).
 */
final class SandboxPaths {

    record Rating(SecurityRisk risk, String reason) { }

    static final String BEYOND = "writes beyond the sandbox (a raw device, the kernel's /proc or /sys, a container engine's socket)";
    static final String ACCOUNTS = "changes accounts, sudoers or scheduled jobs of the system";
    static final String SYSTEM = "writes a system file inside the sandbox";
    static final String EXECUTOR = "writes the sandbox's executor";
    static final String KEYS = "touches private keys or credential stores";
    static final String START_UP = "touches shell start-up files";

    private static final Pattern BEYOND_PATHS = Pattern.compile(
            "^/dev/(?:sd|nvme|vd|xvd|hd|mmcblk|dm-|mapper/|disk/|loop|nbd|sg|md|mem$|kmem$|port$)"
                    + "|^/proc/(?!(?:self|thread-self|\\d+)/fd/)|^/sys(?:/|$)"
                    + "|(?:docker|containerd|podman|crio|dockershim)\\.sock$|^/(?:var/)?run/(?:docker|containerd|podman|crio)(?:/|$)");
    private static final Pattern ACCOUNT_PATHS = Pattern.compile(
            "^/etc/(?:passwd|shadow|group|gshadow|sudoers|sudoers\\.d(?:/|$)|cron|crontab|anacrontab|at\\.allow|at\\.deny)"
                    + "|^/var/spool/(?:cron|at)(?:/|$)");
    private static final Pattern HARMLESS_DEVICES = Pattern.compile(
            "^/dev/(?:null|zero|full|stdout|stderr|stdin|tty|random|urandom|fd/|shm(?:/|$)|pts/|ptmx$)");
    private static final Pattern SYSTEM_PATHS = Pattern.compile(
            "^/(?!usr/local(?:/|$)|var/tmp(?:/|$))(?:etc|bin|sbin|lib|lib32|lib64|libx32|boot|usr|var|srv|run|snap|dev)(?:/|$)|^/$");
    private static final Pattern EXECUTOR_PATHS = Pattern.compile("^/(?:dockyard|opt/dockyard)(?:/|$)");
    static final Pattern KEY_FILES = Pattern.compile(
            "(?:^|/)(?:\\.ssh/|\\.aws/|\\.netrc$|\\.git-credentials$|\\.docker/config\\.json$|\\.kube/config$)");
    static final Pattern START_UP_FILES = Pattern.compile(
            "(?:^|/)\\.(?:bashrc|bash_profile|bash_login|profile|zshrc|zprofile)$|^/etc/(?:profile|bash\\.bashrc|environment|profile\\.d/)");

    private SandboxPaths() {
    }

    /** How risky writing this path is (LOW: null); relative paths are resolved against {@code cwd} when known. */
    static Rating rateWrite(String target, String cwd) {
        String path = resolve(target, cwd);
        if (path == null) {
            return null;
        }
        if (BEYOND_PATHS.matcher(path).find()) {
            return new Rating(SecurityRisk.HIGH, BEYOND);
        }
        if (ACCOUNT_PATHS.matcher(path).find()) {
            return new Rating(SecurityRisk.HIGH, ACCOUNTS);
        }
        if (KEY_FILES.matcher(path).find()) {
            return new Rating(SecurityRisk.MEDIUM, KEYS);
        }
        if (START_UP_FILES.matcher(path).find()) {
            return new Rating(SecurityRisk.MEDIUM, START_UP);
        }
        if (HARMLESS_DEVICES.matcher(path).find()) {
            return null;
        }
        if (EXECUTOR_PATHS.matcher(path).find()) {
            return new Rating(SecurityRisk.MEDIUM, EXECUTOR);
        }
        if (SYSTEM_PATHS.matcher(path).find()) {
            return new Rating(SecurityRisk.MEDIUM, SYSTEM);
        }
        return null;
    }

    /**
     * The root, a home, the workspace (or all that is in them), a top-level system directory or
     * one directly under /usr, /var, /etc or /lib: deleting one of them recursively destroys the
     * workspace or the sandbox itself. Deeper paths (/var/lib/apt/lists/*) are ordinary cleanup.
     */
    static boolean isCriticalDirectory(String target, String cwd) {
        String path = resolve(target, cwd);
        if (path == null) {
            return false;
        }
        if (path.endsWith("/*") || path.endsWith("/.")) {
            path = path.substring(0, path.length() - 2);
        }
        if (path.isEmpty() || path.equals("/") || path.equals("~") || path.equals("/*") || path.equals(".*") || path.endsWith("/.*")) {
            return true;
        }
        return CRITICAL_DIRECTORIES.matcher(path).matches();
    }

    private static final Pattern CRITICAL_DIRECTORIES = Pattern.compile(
            "/(?:etc|usr|bin|sbin|lib|lib32|lib64|libx32|boot|var|opt|root|sys|proc|dev|home|srv|run|workspace|dockyard)"
                    + "|/(?:usr|var|etc|lib|lib64)/(?!tmp$)[^/]+|/home/[^/]+");

    /**
     * Lexically normalised absolute path ({@code ~/...} for a home), or the relative path as
     * given when the working directory is not known; null for what cannot be a path here.
     */
    static String resolve(String target, String cwd) {
        if (target.isEmpty() || target.equals("-")) {
            return null;
        }
        String path = target;
        if (path.equals("~") || path.startsWith("~/") || path.startsWith("$HOME") || path.startsWith("${HOME}")) {
            int skip = path.startsWith("~") ? 1 : path.startsWith("$HOME") ? 5 : 7;
            return "~" + normalise(path.substring(skip), true);
        }
        if (!path.startsWith("/")) {
            if (cwd == null) {
                return path;
            }
            path = cwd + "/" + path;
        }
        return normalise(path, false);
    }

    private static String normalise(String path, boolean keepEmpty) {
        List<String> parts = new ArrayList<>();
        for (String part : path.split("/")) {
            if (part.isEmpty() || part.equals(".")) {
                continue;
            }
            if (part.equals("..")) {
                if (!parts.isEmpty()) {
                    parts.remove(parts.size() - 1);
                }
            } else {
                parts.add(part);
            }
        }
        if (parts.isEmpty()) {
            return keepEmpty ? "" : "/";
        }
        StringBuilder out = new StringBuilder();
        parts.forEach(p -> out.append('/').append(p));
        if (path.endsWith("/.") && !keepEmpty) {
            out.append("/.");
        }
        return out.toString();
    }
}
