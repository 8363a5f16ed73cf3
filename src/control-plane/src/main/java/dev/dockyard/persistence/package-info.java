/** How runtimes and their history are stored (JPA on the {@code jdbc/dockyard} data source) and found. */
package dev.dockyard.persistence;
