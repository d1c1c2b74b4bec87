package dev.agentauth.spring.autoconfigure;

import java.util.Objects;

/**
 * A startup mistake in the starter's configuration that the application can fix: what is wrong
 * ({@link #description()}, naming the property) and what to do ({@link #action()}). Spring Boot
 * reports it through {@link AgentAuthConfigurationFailureAnalyzer} instead of a stack trace.
 */
final class AgentAuthConfigurationException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  private final String description;
  private final String action;

  /**
   * @param description what is wrong, naming the property
   * @param action what to set or define instead
   */
  AgentAuthConfigurationException(String description, String action) {
    super(Objects.requireNonNull(description, "description") + " " + action);
    this.description = description;
    this.action = Objects.requireNonNull(action, "action");
  }

  /** Returns what is wrong, naming the property. */
  String description() {
    return description;
  }

  /** Returns what to set or define instead. */
  String action() {
    return action;
  }
}
