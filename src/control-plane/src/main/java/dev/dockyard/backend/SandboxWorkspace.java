package dev.dockyard.backend;

/**
 * Where a sandbox's {@code /workspace} lives: a labelled volume the backend creates with the
 * sandbox ({@link Kind#FRESH}: empty, seeded from the image's own {@code /workspace};
 * {@link Kind#COPY}: a copy of another volume, a snapshot's), or a volume that outlived an earlier
 * sandbox and is mounted as it is ({@link Kind#MOUNT}: a kept workspace). A fresh or copied
 * volume is the sandbox's own and goes with it; a mounted one is never removed with the sandbox.
 *
 * @param volume the volume to mount or to copy; null for a fresh one
 * @param diskMb the volume's size limit in MB where the backend can bound it; 0 for its default
 */
public record SandboxWorkspace(Kind kind, String volume, int diskMb) {

    public enum Kind { FRESH, COPY, MOUNT }

    public SandboxWorkspace {
        if (kind == null || (kind != Kind.FRESH && (volume == null || volume.isBlank())) || diskMb < 0) {
            throw new IllegalArgumentException("a " + kind + " workspace needs a volume and a size >= 0");
        }
    }

    public static SandboxWorkspace fresh(int diskMb) {
        return new SandboxWorkspace(Kind.FRESH, null, diskMb);
    }

    public static SandboxWorkspace copyOf(String volume, int diskMb) {
        return new SandboxWorkspace(Kind.COPY, volume, diskMb);
    }

    public static SandboxWorkspace mount(String volume) {
        return new SandboxWorkspace(Kind.MOUNT, volume, 0);
    }

    /** The volume a sandbox creates for itself (fresh or copied): named after it, so it is found without it. */
    public static String ownVolume(String sandboxName) {
        return sandboxName + "-ws";
    }
}
