package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/** One page of {@code GET /v1/api-keys}: the workspace's keys, oldest first, without secrets. */
public record ApiKeyPage(
    @JsonProperty("api_keys") List<ApiKey> apiKeys,
    @JsonProperty("has_more") boolean hasMore,
    @JsonProperty("next_cursor") String nextCursor) {

  /** Copies {@code apiKeys}; {@code null} becomes empty. */
  public ApiKeyPage {
    apiKeys = Copies.listOrEmpty(apiKeys);
  }
}
