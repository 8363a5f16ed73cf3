/**
 * OpenHands' Remote Runtime API at {@code /runtime-api}, field for field as its clients call it
 * (the legacy {@code RemoteRuntime}, the app server's {@code RemoteSandboxService}, the SDK's
 * {@code APIRemoteWorkspace}): {@code X-API-Key} is a Dockyard user's key, so tenancy, quotas and
 * audit apply. Resources parse, authorise, call {@link dev.dockyard.application.remote.RemoteRuntimes}
 * and map the answer to OpenHands' runtime object ({@link dev.dockyard.runtimeapi.RemoteRuntimeView}).
 */
package dev.dockyard.runtimeapi;
