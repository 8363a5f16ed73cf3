/**
 * The Liberty user feature {@code usr:dockyardProblems-1.0}: RFC 9457 problem+json answers for the
 * requests Liberty refuses before any application runs. {@link dev.dockyard.transport.TransportProblem}
 * uses the control plane's own problem types and titles, so a client cannot tell which layer refused.
 * {@link dev.dockyard.transport.MalformedPathContainer}, on Liberty's supported HTTP SPI, answers the
 * paths the web container would refuse ({@link dev.dockyard.transport.PathRefusals}) and ambiguous body
 * framing ({@code FramingRefusals}); {@link dev.dockyard.transport.ChannelErrorPages} gives the HTTP
 * channel's own error answers a body through Liberty internals. No API promises those internals, nor
 * that the container is asked before the web container, so {@code TransportProblemsIT} checks both on
 * a real server. The module is an OSGi bundle with a hand-written manifest.
 */
package dev.dockyard.transport;
