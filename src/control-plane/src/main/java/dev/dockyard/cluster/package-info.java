/**
 * Several control planes on one database: each process's identity, and named leases in the database
 * that decide which instance runs each job that must run once (the reconciler, the credential
 * refresher, pool refills, the idle reaper). An instance's heartbeat is a lease of its own, which
 * tells the others whether its in-flight provisions are still being worked on.
 */
package dev.dockyard.cluster;
