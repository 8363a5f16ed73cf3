/**
 * The control plane's settings: {@link dev.dockyard.config.DockyardConfig} reads every knob from
 * MicroProfile Config (system properties, environment variables, server.xml variables, then the
 * defaults), and {@link dev.dockyard.config.ClockProducer} gives the clock every timestamp and
 * deadline comes from, {@link dev.dockyard.config.ServiceUrls} what the proxy settings make of a
 * runtime's service URLs. The package imports nothing else of Dockyard's. docs/configuration.md lists each setting once; a test checks it against
 * what the code reads.
 */
package dev.dockyard.config;
