/**
 * The starter's configuration properties, bound from {@code agentauth.*} ({@link
 * dev.agentauth.spring.autoconfigure.properties.AgentAuthProperties}), kept apart from the
 * auto-configuration that reads them, as Spring AI's own starters keep theirs.
 */
package dev.agentauth.spring.autoconfigure.properties;
