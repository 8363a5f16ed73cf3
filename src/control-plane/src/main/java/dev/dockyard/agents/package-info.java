/**
 * The agents a runtime can be provisioned for, declared in configuration: each names its default
 * LLM settings and its security policy. The LLM configuration of a runtime is built from the
 * request, the agent's defaults and (later) the user's provider credentials.
 */
package dev.dockyard.agents;
