/**
 * Where new runtimes go. Every backend node has a capacity (MP Config
 * {@code dockyard.node.<name>.max-runtimes} and {@code .max-memory-mb}, unset: unbounded) and a
 * health ({@link dev.dockyard.placement.NodeHealth}: the last probe of its backend). A new runtime
 * goes to the healthy node with the most free capacity that can take it
 * ({@link dev.dockyard.placement.Placement}); what a node holds is counted from the live runtimes
 * recorded for it, so the count survives restarts and includes runtimes still starting.
 */
package dev.dockyard.placement;
