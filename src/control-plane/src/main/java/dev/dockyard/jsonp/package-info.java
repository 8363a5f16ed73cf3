/**
 * JSON-P with its provider looked up once ({@link dev.dockyard.jsonp.Jsonp}): the control plane
 * builds and reads JSON on every request, and {@code jakarta.json.Json} looks the provider up on
 * every call.
 */
package dev.dockyard.jsonp;
