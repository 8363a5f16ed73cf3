/**
 * How risky an action is before it runs, and what its agent's policy does about it: a fixed rule
 * table rates commands, code, paths and URLs by what they would really write or reach
 * ({@link dev.dockyard.security.SecurityAnalyzer}), and the policy blocks, asks for confirmation or
 * runs it ({@link dev.dockyard.security.SecurityPolicy}). Verdicts name rules, never the action's text.
 */
package dev.dockyard.security;
