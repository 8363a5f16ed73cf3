/**
 * Who may do what: user accounts with a role, their API keys (only SHA-256 hashes are stored),
 * and per-user quotas on live runtimes, CPUs and memory.
 */
package dev.dockyard.tenancy;
