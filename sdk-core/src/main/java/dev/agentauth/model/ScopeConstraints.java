package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * The {@code constraints} object of a {@link ScopeEntry}. Absent members are {@code null} and
 * omitted when written.
 *
 * @param maxPerDay maximum {@code allow} decisions per UTC day for the authorization and scope
 * @param resourcePattern fnmatch-style pattern the check's {@code resource} must match
 * @param allowedInitiators accepted values of the check's {@code context.initiated_by}
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ScopeConstraints(
    @JsonProperty("max_per_day") Long maxPerDay,
    @JsonProperty("resource_pattern") String resourcePattern,
    @JsonProperty("allowed_initiators") List<String> allowedInitiators) {

  /** Copies {@code allowedInitiators}; {@code null} stays {@code null}. */
  public ScopeConstraints {
    allowedInitiators = Copies.list(allowedInitiators);
  }
}
