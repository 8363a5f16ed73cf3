/**
 * The operations console at {@code /console}: static HTML, CSS and ES modules in the WAR
 * ({@code webapp/console}) that talk only to {@code /api/v1} with the API key the operator typed,
 * kept in the browser's session storage. Java here only guards how those files are served.
 */
package dev.dockyard.console;
