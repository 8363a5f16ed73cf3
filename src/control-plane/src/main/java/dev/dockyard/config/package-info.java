/**
 * The control plane's settings: {@link dev.dockyard.config.DockyardConfig} reads every knob from
 * MicroProfile Config (system properties, environment variables, server.xml variables, then the
 * defaults), and {@link dev.dockyard.config.ClockProducer} gives the clock every timestamp and
 * deadline comes from. docs/configuration.md lists each setting once; a test checks it against
 * what the code reads.
 */
package dev.dockyard.config;
