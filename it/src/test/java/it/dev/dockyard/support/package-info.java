/**
 * What the end-to-end and executor suites share, none of it a test: the control planes they run
 * against (the shared one every suite gets, the disposable one, those a suite boots for itself,
 * all with the settings of {@link it.dev.dockyard.support.ControlPlaneSettings}), the clients
 * they speak through (the Dockyard API, the Remote Runtime API, raw HTTP, event streams), the
 * executor suites' sandboxes on each kind of node, the engines, forwarders and Kubernetes
 * stand-ins they set up, and the order the suites start in.
 */
package it.dev.dockyard.support;
