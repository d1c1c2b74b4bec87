package dev.agentauth.server.domain;

import java.util.List;

/**
 * One scope of an authorization with its constraints, as the engine evaluates it. Null constraints
 * are absent.
 */
public record ScopeRule(
    String name, Long maxPerDay, String resourcePattern, List<String> allowedInitiators) {

  public ScopeRule {
    allowedInitiators = allowedInitiators == null ? null : List.copyOf(allowedInitiators);
  }

  /** Whether any constraint was given (the wire form then carries a {@code constraints} object). */
  public boolean hasConstraints() {
    return maxPerDay != null || resourcePattern != null || allowedInitiators != null;
  }
}
