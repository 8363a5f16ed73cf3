/**
 * What an operator scrapes at {@code /metrics} (MicroProfile Metrics, Prometheus text): one bean,
 * {@link dev.dockyard.observability.DockyardMetrics}, records for the services, so no domain class
 * speaks the metrics API. Every label comes from a closed set (status and step names, configured
 * nodes, protocol action types, risks, decisions, build paths); anything else is {@code other}, so
 * no secret or free text can reach a label.
 */
package dev.dockyard.observability;
