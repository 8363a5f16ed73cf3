/**
 * Warm pools: sandboxes booted to {@code /ready} before anyone asks for them, so that a runtime
 * is handed out in milliseconds instead of an executor's boot.
 *
 * <p>The model. A {@link PoolDefinition} (MP Config or the API) says what to keep ready: image,
 * CPUs, memory, plugins, node, how many ({@code size}) and how many may boot at once
 * ({@code maxBooting}, so refills never starve running sandboxes of CPU). Each warm sandbox is a
 * {@link PoolMember}: a row recorded before its container exists (BOOTING), READY once its executor
 * answers. It owns nothing of any user: no configuration, no credential, no quota. Its id is the id
 * of the runtime that will claim it, so its container is named and labelled as that runtime's
 * from the start.
 *
 * <p>A claim ({@link WarmPools}) happens in the transaction that registers the runtime: the
 * member's row is deleted only if still READY, the user's quota admits the runtime and the
 * conversation has none, all or nothing; then the runtime's configuration goes in through the
 * executor's {@code /configure}, exactly as after a cold boot. A member is used once: when its
 * runtime ends, its sandbox is removed like any other. The {@link PoolKeeper} tops pools up,
 * replaces members whose sandbox died, drains members of a changed definition or a rebuilt image,
 * and does nothing on a node it cannot list. Its pass decides; {@link MemberBoots} boots a member
 * (with {@code MemberSpecs} and {@link PoolImages}), {@link MemberDrain} drains one,
 * {@link RefillPacing} holds refills back while claims arrive and within a node's memory, and
 * {@link PoolHealth} keeps each pool's last error and back-off.
 */
package dev.dockyard.pool;
