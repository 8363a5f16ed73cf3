/** Secrets at rest: sealed with AES-GCM under a key from MP Config before they reach the database. */
package dev.dockyard.secrets;
