/**
 * The executor wire protocol of PROTOCOL.md: the OpenHands-compatible action and observation
 * dicts that travel between an agent, the control plane and the executor inside a sandbox.
 *
 * <p>Actions and observations are immutable records; {@link dev.dockyard.protocol.ProtocolJson}
 * maps them to and from the exact OpenHands JSON shape (snake_case keys, {@code args} and
 * {@code extras} envelopes), and the JSON-B adapters in this package let JAX-RS resources take
 * and return them directly. This module depends on the JSON-P/JSON-B APIs only.
 */
package dev.dockyard.protocol;
