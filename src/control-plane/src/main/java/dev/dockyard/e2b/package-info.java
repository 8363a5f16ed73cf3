/**
 * E2B's control API at {@code /e2b} on the API port ({@code E2B_API_URL=http://host:9080/e2b}), route
 * for route as E2B's SDKs call it (v1 and v2 forms): {@code X-API-KEY} is a Dockyard user's key, so
 * tenancy and quotas apply as on {@code /api/v1}; every error is E2B's {@code {"code", "message"}}
 * ({@link dev.dockyard.e2b.E2bErrors}). Resources parse, authorise, call
 * {@link dev.dockyard.application.e2b.E2bSandboxes} and map the answer to E2B's objects
 * ({@link dev.dockyard.e2b.SandboxView}). The envd half is served by the sandbox's executor through
 * the service proxy.
 */
package dev.dockyard.e2b;
