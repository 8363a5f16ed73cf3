/**
 * The audit trail: one entry per action the control plane handled (who, which runtime, what kind,
 * how risky, what the policy decided, how it went), never the action's text or output. Entries
 * are stored off the action's path, in batches, so auditing neither slows an action nor fails it.
 */
package dev.dockyard.audit;
