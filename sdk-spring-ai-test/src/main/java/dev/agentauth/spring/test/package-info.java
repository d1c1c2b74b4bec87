/**
 * Spring Boot test support for applications that use agentauth's starter: {@link
 * dev.agentauth.spring.test.EmbeddedAgentAuthServer} starts the embedded reference server for a
 * test's application context and points {@code agentauth.*} at it.
 */
package dev.agentauth.spring.test;
