package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;

/**
 * A permanent workspace tombstone: checks on exactly this {@code resource} are denied ({@code
 * resource_tombstoned}). Body of {@code POST /v1/tombstones} responses and element of {@link
 * TombstonePage}; {@code reason} is explicit {@code null} when none was given.
 */
public record Tombstone(
    @JsonProperty("resource") String resource,
    @JsonProperty("reason") String reason,
    @JsonProperty("created_at") Instant createdAt) {}
