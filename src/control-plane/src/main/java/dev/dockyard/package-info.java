/**
 * Dockyard's control plane: provisions one sandbox runtime per agent conversation and carries the
 * agent's actions to the executor inside it.
 *
 * <ul>
 *   <li>{@code api}: the REST API of API.md (auth, problem+json, resources).</li>
 *   <li>{@code runtime}: the runtime model and its status life cycle;
 *       {@code runtime.provisioning} brings a runtime up and tears it down;
 *       {@code runtime.executor} talks PROTOCOL.md to the executor in a sandbox.</li>
 *   <li>{@code runtime.reconciliation}: keeps the database and the backend in agreement.</li>
 *   <li>{@code backend}: the port to whatever runs sandboxes; {@code backend.docker} its Docker adapter.</li>
 *   <li>{@code tenancy}: users, API keys and quotas; {@code credentials}: provider credentials;
 *       {@code agents}: the configured agents; {@code secrets}: sealing secrets at rest.</li>
 *   <li>{@code persistence}: how runtimes are stored and found.</li>
 *   <li>{@code config}: every knob, from MicroProfile Config.</li>
 * </ul>
 */
package dev.dockyard;
