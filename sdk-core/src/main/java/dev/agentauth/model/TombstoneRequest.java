package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Body of {@code POST /v1/tombstones}: exactly one of {@code resource} (one exact resource string)
 * and {@code resourcePattern} (every resource the pattern matches, with the matcher of a scope's
 * {@code resource_pattern}). {@code null} members mean absent and are omitted when written.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TombstoneRequest(
    @JsonProperty("resource") String resource,
    @JsonProperty("resource_pattern") String resourcePattern,
    @JsonProperty("reason") String reason) {

  /** A request for an exact tombstone. */
  public TombstoneRequest(String resource, String reason) {
    this(resource, null, reason);
  }

  /** A request for a pattern tombstone. */
  public static TombstoneRequest pattern(String resourcePattern, String reason) {
    return new TombstoneRequest(null, resourcePattern, reason);
  }
}
