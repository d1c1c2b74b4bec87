package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * One element of {@code scopes} in authorizations and bundles (requests and responses): a dotted
 * scope name with optional constraints. {@code constraints} is omitted when {@code null}, so
 * entries are returned exactly as sent.
 */
public record ScopeEntry(
    @JsonProperty("name") String name,
    @JsonProperty("constraints") @JsonInclude(JsonInclude.Include.NON_NULL)
        ScopeConstraints constraints) {

  /** Returns an entry without constraints. */
  public static ScopeEntry of(String name) {
    return new ScopeEntry(name, null);
  }

  /** Returns an entry with constraints, e.g. from {@link ScopeConstraints#builder()}. */
  public static ScopeEntry of(String name, ScopeConstraints constraints) {
    return new ScopeEntry(name, constraints);
  }
}
