/**
 * What the control plane does once at its start so that the first provision after it costs what
 * the next ones do: {@link dev.dockyard.warmup.StartupWarmUp} readies every node and sends the API
 * a few requests over loopback, then {@link dev.dockyard.warmup.StartupRehearsal} rehearses one provision
 * through the API by a user made for it and deleted after it; {@code /health/ready}'s {@code warm-up} check
 * ({@link dev.dockyard.warmup.WarmUpReadiness}) is DOWN until it is done, so that a load balancer
 * sends the first agent to a warm server.
 */
package dev.dockyard.warmup;
