package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;

/**
 * A permanent workspace tombstone: checks on exactly this {@code resource}, or on any resource that
 * {@code resourcePattern} matches (the same matcher as a scope's {@code resource_pattern}), are
 * denied ({@code resource_tombstoned}). Exactly one of the two is set; the other is explicit {@code
 * null}. Body of {@code POST /v1/tombstones} responses and element of {@link TombstonePage}; {@code
 * reason} is explicit {@code null} when none was given.
 */
public record Tombstone(
    @JsonProperty("resource") String resource,
    @JsonProperty("resource_pattern") String resourcePattern,
    @JsonProperty("reason") String reason,
    @JsonProperty("created_at") Instant createdAt) {

  /** An exact tombstone. */
  public Tombstone(String resource, String reason, Instant createdAt) {
    this(resource, null, reason, createdAt);
  }
}
