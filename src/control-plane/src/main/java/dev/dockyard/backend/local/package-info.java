/**
 * The local backend ({@code dockyard.node.<name>.type=local}): each sandbox is the executor bundle
 * run as a host process of this machine, for hosts without a container engine and for fast
 * development loops.
 *
 * <p>The model: a sandbox is a directory under the node's root ({@code sandboxes/<name>}: its
 * workspace, home, temporary files, Liberty's output and the 700 directory of its session key),
 * owned by the node's unprivileged user when the control plane runs as root, and a process tree
 * started with {@code setsid} on a free 127.0.0.1 port. What the control plane knows of it is a
 * record ({@code records/<name>.properties}, root's alone): the pid with the process's start time
 * ({@code /proc/<pid>/stat} field 22) and the labels Docker would carry. A pid whose start time
 * differs belongs to another process now and is never signalled.
 *
 * <p>Every process of the sandbox carries its name in the variable {@code DOCKYARD_SANDBOX}
 * (the executor's shell runs in a session of its own, so a process group alone does not hold the
 * tree): pause, stop and removal signal every process of the node's user that carries it, every
 * process descending from the recorded executor, and those of the sandbox's cgroup where limits
 * are on ({@link CgroupLimits}).
 *
 * <p>The port is the kernel's free pick, bound by the executor a moment later: the session key is
 * sent there only once {@code /proc} shows every socket listening on it to be held by the
 * recorded executor or a descendant ({@link SandboxProcesses#listensAt}).
 *
 * <p>The classes: {@link LocalBackend} is the node's {@code RuntimeBackend}, which checks each
 * call and keeps the record in step; {@link SandboxFiles} keeps each sandbox's directory and
 * record and hands it its session key; {@link ExecutorLauncher} starts the executor (cgroups,
 * session, namespaces, user, environment); {@link SandboxProcesses} finds and signals a
 * sandbox's processes; {@link SandboxArchives} moves its workspace as a tar; {@link SafeTree}
 * holds the file operations that never follow a link the sandbox user could have planted.
 *
 * <p>What it does not give (docs/backends.md, "Local backend"): no file-system, network or pid namespace;
 * sandboxes share one user, so they can read each other's files; egress policies, snapshots,
 * runtime classes and images' own programs are refused.
 */
package dev.dockyard.backend.local;
