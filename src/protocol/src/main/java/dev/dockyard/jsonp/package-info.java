/**
 * JSON-P with its provider looked up once ({@link dev.dockyard.jsonp.Jsonp}): the control plane
 * and the executor build and read JSON on every request, and {@code jakarta.json.Json} looks the
 * provider up on every call (in a sandbox's executor, its first {@code /configure} read the
 * provider's jar for it).
 */
package dev.dockyard.jsonp;
