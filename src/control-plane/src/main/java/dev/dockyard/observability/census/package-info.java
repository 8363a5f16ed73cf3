/**
 * The {@code dockyard_runtimes} gauges: how many runtimes are in each status on each node, read
 * from the database by {@link dev.dockyard.observability.census.RuntimeCensus}. A package of its own
 * because it reads the domain (statuses, nodes, the runtime table) while the metrics bean beside it
 * is called by the domain: together they would close a package cycle.
 */
package dev.dockyard.observability.census;
