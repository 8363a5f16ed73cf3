/**
 * What the control plane keeps of the past, and for how long: the rows of ended runtimes with
 * their status changes, the older status changes of runtimes that live long, and the audit
 * trail. Each kind has a retention setting ({@code dockyard.retention.*}); a timer forgets what is
 * older, a bounded batch per transaction, so that tables stay bounded under a steady stream of
 * runtimes and queries over a user's history (the quota's counts) do not grow with it.
 */
package dev.dockyard.application.retention;
