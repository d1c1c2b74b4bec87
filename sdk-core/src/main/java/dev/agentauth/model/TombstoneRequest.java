package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Body of {@code POST /v1/tombstones}. {@code null} members mean absent and are omitted when
 * written.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TombstoneRequest(
    @JsonProperty("resource") String resource, @JsonProperty("reason") String reason) {}
