/**
 * The optional capabilities a runtime may ask for (PROTOCOL.md's plugins): {@code jupyter} and
 * {@code browser}. {@link dev.dockyard.executor.plugins.Plugins} constructs only those requested and
 * starts each on its own thread while the executor boots; the sandbox is ready when all are up, and
 * failed as soon as one fails. Each is a {@link dev.dockyard.executor.plugins.Plugin}:
 * {@link dev.dockyard.executor.plugins.JupyterPlugin} runs cells on one persistent IPython kernel
 * through a small Python bridge process that speaks one JSON line per request, and
 * {@link dev.dockyard.executor.plugins.BrowserPlugin} drives the image's headless Chromium over the
 * DevTools protocol ({@code DevTools}). Browser actions address elements by CSS selector or visible
 * text, not by BrowserGym's element ids, so {@code AgentText} frames the page as text, not as an
 * accessibility tree.
 */
package dev.dockyard.executor.plugins;
