/**
 * The port to whatever runs sandboxes. {@link dev.dockyard.backend.RuntimeBackend} creates, starts,
 * inspects and removes one sandbox per runtime; each node also offers a
 * {@link dev.dockyard.backend.RuntimeImageBuilder}, which builds and inspects images where the node
 * can ({@link dev.dockyard.backend.InspectOnlyImages} where it cannot).
 * {@link dev.dockyard.backend.BackendNodes} names the nodes and hands out each one's backend and
 * builder; {@link dev.dockyard.backend.ConfiguredNodes} opens each configured node with the
 * {@link dev.dockyard.backend.NodeFactory} bean of its type (a {@link dev.dockyard.backend.BackendNode}),
 * so nothing here knows an adapter by its class. The adapters ({@code backend.docker}, {@code backend.kubernetes}, {@code backend.local},
 * {@code backend.cli}, {@code backend.remote}) implement them, and every resource an adapter
 * creates carries the {@link dev.dockyard.backend.Labels}. The port imports none of the use cases
 * that call it: {@code images} (building runtime images) uses the builder, not the other way round.
 */
package dev.dockyard.backend;
