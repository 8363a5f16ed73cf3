/**
 * Provider credentials a runtime needs (git tokens, API keys), per user: a {@link
 * dev.dockyard.credentials.CredentialProvider} SPI resolves each stored credential to a value that
 * is valid now, refreshing it when it expires within the configured window. Built in: stored
 * secrets and OAuth2 refresh tokens (RFC 6749, refresh_token grant). Values are sealed at rest.
 */
package dev.dockyard.credentials;
