/**
 * Pieces of HTTP/1.1 that Dockyard reads off a socket itself, where no client library stands
 * between: a {@link dev.dockyard.http.ResponseHead} and the body its framing gives (chunked bodies
 * decoded by {@link dev.dockyard.http.ChunkedInputStream}), for the service proxy's upgrade
 * handshakes and for credential calls pinned to a checked address; and a {@link
 * dev.dockyard.http.Header} line. A package of its own because both the interface ring
 * ({@code proxy}) and the domain ({@code credentials}) use it, and the domain may not reach into the
 * interface ring.
 */
package dev.dockyard.http;
