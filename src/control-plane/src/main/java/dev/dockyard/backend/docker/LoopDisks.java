package dev.dockyard.backend.docker;

import dev.dockyard.backend.BackendException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.logging.Logger;

/**
 * Size-bounded workspace disks on the engine's host: each workspace volume is an ext4 file system
 * in a sparse image file ({@code <dir>/<volume>.img}) attached to a loop device, which Docker's
 * {@code local} volume driver mounts ({@code type=ext4}). A write past its size fails in the
 * sandbox with ENOSPC while every other sandbox and the host are unaffected.
 *
 * <p>Why not the engine's own {@code --storage-opt size=}: it needs overlay2 on XFS mounted with
 * {@code pquota}, and ext4 project quotas need a kernel with quota support; neither is assumed (see
 * docs/user-guide.md, "Disk limit"). The local driver mounts with mount(2), which knows no {@code loop} option, so the
 * loop device is attached here, and the volume names a stable link to it
 * ({@code <dir>/<volume>.dev}): after a host reboot the device is attached again and the link
 * moved, while the volume's options stay as they were created.
 *
 * <p>Host commands need root and an engine on this host (a local socket): {@link #probe} says
 * whether they can run here, and why not.
 */
final class LoopDisks {

    private static final Logger LOG = Logger.getLogger(LoopDisks.class.getName());
    private static final long COMMAND_SECONDS = 60;
    private static final int OUTPUT_KEPT = 64 * 1024;

    private final Path dir;

    LoopDisks(Path dir) {
        this.dir = dir;
    }

    /** Why loop disks cannot be used with this engine on this host, or empty when they can. */
    static Optional<String> probe(Path dir, String dockerHost) {
        if (dockerHost != null && !dockerHost.isBlank() && !dockerHost.startsWith("unix://")) {
            return Optional.of("the engine (" + dockerHost + ") is not on this host");
        }
        if (!"root".equals(System.getProperty("user.name"))) {
            return Optional.of("the control plane does not run as root (loop devices need it)");
        }
        if (!Files.exists(Path.of("/dev/loop-control"))) {
            return Optional.of("the kernel offers no loop devices (/dev/loop-control is missing)");
        }
        for (String tool : List.of("mkfs.ext4", "debugfs", "losetup")) {
            if (which(tool).isEmpty()) {
                return Optional.of(tool + " is not installed (packages e2fsprogs, mount/util-linux)");
            }
        }
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            return Optional.of("cannot create " + dir + ": " + e.getMessage());
        }
        return Optional.empty();
    }

    private static Optional<Path> which(String tool) {
        for (String p : List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin")) {
            Path candidate = Path.of(p, tool);
            if (Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /**
     * The {@code local} volume driver's options that mount this disk ({@code type=ext4} on its stable
     * device link). noinit_itable: the kernel leaves the lazily made inode tables alone instead of
     * zeroing them, which would fill the sparse image with tens of MB of zeros per disk.
     */
    Map<String, String> volumeOptions(String volume) {
        return Map.of("type", "ext4", "device", device(volume).toString(), "o", "noinit_itable");
    }

    Path image(String volume) {
        return dir.resolve(volume + ".img");
    }

    /** The stable name of the volume's loop device: what the Docker volume mounts. */
    Path device(String volume) {
        return dir.resolve(volume + ".dev");
    }

    /**
     * A new empty ext4 file system of {@code sizeMb}, its root owned by {@code owner} (uid:gid) and
     * without {@code lost+found} (so Docker seeds it from the image's {@code /workspace} as it does
     * an empty volume), attached.
     */
    void create(String volume, int sizeMb, String owner) {
        Path image = image(volume);
        if (Files.exists(image)) {
            // never format over a disk that exists: it is another sandbox's workspace
            throw new BackendException("workspace disk " + image + " exists already");
        }
        try {
            try (RandomAccessFile file = new RandomAccessFile(image.toFile(), "rw")) {
                // sparse: the disk takes on the host only what the sandbox writes
                file.setLength(sizeMb * 1024L * 1024L);
            }
            run("mkfs.ext4", "-q", "-F", "-m", "0", "-E", "root_owner=" + numericOwner(owner)
                    + ",lazy_itable_init=1,lazy_journal_init=1", image.toString());
            run("debugfs", "-w", "-R", "rmdir lost+found", image.toString());
            attach(volume);
        } catch (IOException | RuntimeException e) {
            deleteQuietly(volume);
            throw e instanceof BackendException b ? b
                    : new BackendException("could not create the workspace disk of " + sizeMb + " MB: " + e.getMessage(), e);
        }
    }

    /**
     * A copy of {@code source}'s disk as {@code target}, attached. The source's writers must be
     * frozen; when a sandbox uses it ({@code inUse}) its file system is frozen here too (at
     * {@code mountpoint}, where its engine mounts it), so what it holds in memory is on the disk
     * first.
     *
     * <p>The freeze, the copy and the thaw run in one shell of their own: a control plane killed
     * during the copy (the soak's kill of the lease holder, 2026-12-01 08:02) leaves that shell to
     * copy and thaw. Before, the file system stayed frozen: the sandbox's next write hung in the
     * kernel, its executor never answered, and its engine could not kill it.
     */
    void copy(String source, String target, String mountpoint, boolean inUse) {
        if (Files.exists(image(target))) {
            throw new BackendException("workspace disk " + image(target) + " exists already");
        }
        boolean frozen = inUse && mountpoint != null && isMounted(mountpoint);
        String from = image(source).toString();
        String to = image(target).toString();
        try {
            if (frozen) {
                run("sh", "-c", FREEZE_COPY_THAW, "freeze-copy-thaw", which("fsfreeze").map(Path::toString)
                        .orElse("fsfreeze"), mountpoint, from, to);
            } else {
                if (inUse) {
                    // mounted where this process cannot see it (another mount namespace): flush every file system
                    run("sync");
                }
                run("cp", "--sparse=always", from, to);
            }
        } catch (CommandFailed e) {
            if (frozen && e.killed()) {
                // the shell thaws on its way out, but not when it was killed outright (SIGKILL, or
                // by run's time limit); any other failure thawed already, or never froze, and a
                // thaw here could thaw a freeze another copy holds
                thawQuietly(mountpoint);
            }
            deleteQuietly(target);
            throw e;
        } catch (RuntimeException e) {
            deleteQuietly(target);
            throw e;
        }
        try {
            attach(target);
        } catch (RuntimeException e) {
            deleteQuietly(target);
            throw e;
        }
    }

    /**
     * Freezes $2 with $1, copies $3 to $4 sparsely, and thaws whatever happens to the copy or to
     * the shell's parent; a shell signalled to stop thaws first (exit 98). Signals are ignored
     * until the thaw is set up, so none can leave the disk frozen in between; a freeze that fails
     * (exit 97: another copy holds one) thaws nothing.
     */
    private static final String FREEZE_COPY_THAW = "trap '' HUP INT TERM\n"
            + "\"$1\" -f \"$2\" || exit 97\n"
            + "trap '\"$1\" -u \"$2\"' EXIT\n"
            + "trap 'exit 98' HUP INT TERM\n"
            + "cp --sparse=always \"$3\" \"$4\"\n";

    /**
     * Thaws the volume's file system wherever this host mounts it, if it is frozen: a sandbox whose
     * workspace was left frozen has a process stuck in a write, and its engine cannot kill it until
     * the file system thaws. Whether any mount was thawed.
     */
    boolean thaw(String volume) {
        String device = device(volume).toString();
        Optional<String> loop = attachedDevice(volume);
        boolean thawed = false;
        for (String mountpoint : mountpoints(m -> m.equals(device) || loop.isPresent() && m.equals(loop.get()))) {
            thawed |= thawQuietly(mountpoint);
        }
        return thawed;
    }

    /** Whether {@code fsfreeze -u} thawed it; false for a file system that was not frozen, or any failure. */
    private static boolean thawQuietly(String mountpoint) {
        try {
            run("fsfreeze", "-u", mountpoint);
            LOG.warning("Thawed the frozen file system at " + mountpoint);
            return true;
        } catch (RuntimeException notFrozen) {
            return false;
        }
    }

    /** The mount points of this host's mounts whose source {@code device} accepts. */
    private static List<String> mountpoints(Predicate<String> device) {
        return mounts().stream().filter(f -> device.test(f[0])).map(f -> f[1]).toList();
    }

    private static boolean isMounted(String mountpoint) {
        return mounts().stream().anyMatch(f -> f[1].equals(mountpoint));
    }

    /** This host's mounts as {@code /proc/self/mounts} lists them (source, mount point, …); none when unreadable. */
    private static List<String[]> mounts() {
        try {
            return Files.readAllLines(Path.of("/proc/self/mounts")).stream()
                    .map(line -> line.split(" "))
                    .filter(f -> f.length > 1)
                    .toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    /**
     * Attaches the disk to a loop device unless it is attached already (after a reboot it is not),
     * and points the volume's stable link at it.
     */
    synchronized void attach(String volume) {
        Path image = image(volume);
        if (!Files.exists(image)) {
            throw new BackendException("the workspace disk " + image + " is gone");
        }
        Optional<String> current = attachedDevice(volume);
        if (current.isPresent()) {
            return;
        }
        String device = run("losetup", "-f", "--show", image.toString()).strip();
        try {
            Path link = dir.resolve(volume + ".dev.new");
            Files.deleteIfExists(link);
            Files.createSymbolicLink(link, Path.of(device));
            Files.move(link, device(volume), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            run("losetup", "-d", device);
            throw new BackendException("could not link " + device + " for workspace " + volume + ": " + e.getMessage(), e);
        }
    }

    /** The loop device the link names, if it is attached to this volume's disk now. */
    private Optional<String> attachedDevice(String volume) {
        try {
            Path link = device(volume);
            if (!Files.isSymbolicLink(link)) {
                return Optional.empty();
            }
            Path device = Files.readSymbolicLink(link);
            Path backing = Path.of("/sys/block", device.getFileName().toString(), "loop", "backing_file");
            if (!Files.exists(backing)) {
                return Optional.empty();
            }
            String file = Files.readString(backing).strip();
            return file.equals(image(volume).toAbsolutePath().toString()) ? Optional.of(device.toString())
                    : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * Gives an unused disk another volume's name (no copy: the image file and its link are
     * renamed; an attached loop device follows its file).
     */
    synchronized void rename(String source, String target) {
        try {
            Files.move(image(source), image(target), StandardCopyOption.ATOMIC_MOVE);
            if (Files.isSymbolicLink(device(source))) {
                Files.move(device(source), device(target), StandardCopyOption.ATOMIC_MOVE);
            }
        } catch (IOException e) {
            throw new BackendException("could not move workspace disk " + source + " to " + target + ": "
                    + e.getMessage(), e);
        }
    }

    /** The disk's size (its file's length), or 0 when it is gone. */
    long capacityBytes(String volume) {
        try {
            return Files.size(image(volume));
        } catch (IOException e) {
            return 0;
        }
    }

    /** The bytes the disk takes on the host (its image file is sparse), or -1 when it is gone. */
    long allocatedBytes(String volume) {
        try {
            return Long.parseLong(run("du", "-B1", "--", image(volume).toString()).split("\\s+")[0]);
        } catch (RuntimeException e) {
            return -1;
        }
    }

    /** Detaches and deletes the disk; already gone is success. The volume must be removed first. */
    synchronized void delete(String volume) {
        attachedDevice(volume).ifPresent(device -> {
            try {
                run("losetup", "-d", device);
            } catch (BackendException e) {
                // "detach failed" for a device the kernel let go of meanwhile (an autoclear device
                // frees itself once its last mount goes, as an engine's restart unmounts them all):
                // detached is what was asked
                boolean stillAttached;
                try {
                    stillAttached = attachedDevice(volume).isPresent();
                } catch (RuntimeException looking) {
                    e.addSuppressed(looking);
                    throw e;
                }
                if (stillAttached) {
                    throw e;
                }
            }
        });
        deleteQuietly(volume);
    }

    private void deleteQuietly(String volume) {
        try {
            Files.deleteIfExists(device(volume));
            Files.deleteIfExists(image(volume));
        } catch (IOException e) {
            LOG.warning("Could not delete the disk of workspace " + volume + ": " + e.getMessage());
        }
    }

    private static String numericOwner(String owner) {
        String[] parts = owner.split(":");
        return parts[0] + ":" + (parts.length > 1 ? parts[1] : parts[0]);
    }

    /** Runs a host command; its output, or a BackendException naming what it said. */
    /**
     * Runs a host command to its end, or for at most {@link #COMMAND_SECONDS}; its output. The
     * output goes to a file, not a pipe: a pipe read to its end would wait for every process that
     * holds it, and the time limit would never be reached.
     */
    private static String run(String... command) {
        List<String> line = new ArrayList<>(List.of(command));
        line.set(0, which(command[0]).map(Path::toString).orElse(command[0]));
        Path output = null;
        try {
            output = Files.createTempFile("dockyard-command-", ".out");
            Process process = new ProcessBuilder(line).redirectErrorStream(true).redirectOutput(output.toFile())
                    .start();
            if (!process.waitFor(COMMAND_SECONDS, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                throw new CommandFailed(command[0] + " did not finish within " + COMMAND_SECONDS + " s", true);
            }
            String said = tail(output);
            int exit = process.exitValue();
            if (exit != 0) {
                // Java reports a process ended by a signal as 128 + the signal
                throw new CommandFailed(command[0] + " failed (exit " + exit + "): " + said.strip(), exit > 128);
            }
            return said;
        } catch (IOException e) {
            throw new BackendException("could not run " + command[0] + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendException("interrupted while running " + command[0], e);
        } finally {
            if (output != null) {
                output.toFile().delete();
            }
        }
    }

    /** A command's output, its last {@link #OUTPUT_KEPT} bytes at most. */
    private static String tail(Path output) throws IOException {
        try (RandomAccessFile file = new RandomAccessFile(output.toFile(), "r")) {
            long from = Math.max(0, file.length() - OUTPUT_KEPT);
            byte[] kept = new byte[(int) (file.length() - from)];
            file.seek(from);
            file.readFully(kept);
            return new String(kept, StandardCharsets.UTF_8);
        }
    }

    /** A host command that failed; {@code killed} when it ended by a signal or at the time limit. */
    private static final class CommandFailed extends BackendException {

        private static final long serialVersionUID = 1L;
        private final boolean killed;

        CommandFailed(String message, boolean killed) {
            super(message);
            this.killed = killed;
        }

        boolean killed() {
            return killed;
        }
    }
}
