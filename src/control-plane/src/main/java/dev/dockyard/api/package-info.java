/**
 * The control plane's REST API (API.md) under {@code /api/v1}: who is calling
 * ({@link dev.dockyard.api.ApiKeyFilter}), errors as RFC 9457 problem+json
 * ({@link dev.dockyard.api.Problem}), and the runtime resources.
 */
package dev.dockyard.api;
