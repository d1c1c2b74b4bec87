/**
 * What an application of agentauth's Spring AI starter touches at run time: {@link
 * dev.agentauth.spring.AgentAuthToolCallbacks} guards the tools a {@code ChatClient} calls (each
 * becoming a {@link dev.agentauth.spring.GuardedToolCallback}); {@link
 * dev.agentauth.spring.AuthenticatedUserExtractor} puts the authenticated caller into the MCP
 * transport context; {@link dev.agentauth.spring.ActiveGrantResolver} finds a call's authorization;
 * {@link dev.agentauth.spring.ToolScopes} maps tool names to scopes; {@link
 * dev.agentauth.spring.MicrometerDecisionListener} counts decisions. Each is a bean of the starter
 * that the application may replace, and each can be built without Spring Boot.
 *
 * <p>The auto-configuration that builds them from {@code agentauth.*} is in {@code
 * dev.agentauth.spring.autoconfigure}; nothing here depends on it.
 */
package dev.agentauth.spring;
