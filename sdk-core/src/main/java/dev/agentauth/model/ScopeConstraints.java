package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The {@code constraints} object of a {@link ScopeEntry}. Absent members are {@code null} and
 * omitted when written. Build one by name rather than by position:
 *
 * <pre>{@code
 * ScopeConstraints crm = ScopeConstraints.builder()
 *     .maxPerDay(100)              // at most 100 allows per UTC day
 *     .resourcePattern("crm:*")    // the check's resource must match
 *     .build();
 * }</pre>
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

  /** Returns a builder with no constraint set. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Builds {@link ScopeConstraints} member by member; a member never set is absent. The service
   * validates the values (limits in docs/server.md); the builder rejects only what can never be
   * valid.
   */
  public static final class Builder {
    private Long maxPerDay;
    private String resourcePattern;
    private List<String> allowedInitiators;

    private Builder() {}

    /**
     * At most {@code max} {@code allow} decisions per UTC day for the authorization and scope.
     *
     * @throws IllegalArgumentException if {@code max} is less than 1
     */
    public Builder maxPerDay(long max) {
      if (max < 1) {
        throw new IllegalArgumentException("maxPerDay must be at least 1, was " + max);
      }
      this.maxPerDay = max;
      return this;
    }

    /**
     * The fnmatch-style pattern ({@code *}, {@code ?}, {@code [...]}) the check's {@code resource}
     * must match; a check without a resource is denied.
     */
    public Builder resourcePattern(String pattern) {
      this.resourcePattern = Objects.requireNonNull(pattern, "pattern");
      return this;
    }

    /**
     * The accepted values of the check's {@code context.initiated_by}; a check naming another
     * initiator, or none, is denied.
     */
    public Builder allowedInitiators(String... initiators) {
      return allowedInitiators(Arrays.asList(initiators));
    }

    /** Like {@link #allowedInitiators(String...)}. */
    public Builder allowedInitiators(List<String> initiators) {
      Objects.requireNonNull(initiators, "initiators");
      initiators.forEach(i -> Objects.requireNonNull(i, "an initiator"));
      this.allowedInitiators = List.copyOf(initiators);
      return this;
    }

    /** Returns the constraints. */
    public ScopeConstraints build() {
      return new ScopeConstraints(maxPerDay, resourcePattern, allowedInitiators);
    }
  }
}
