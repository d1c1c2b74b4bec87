package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/** One page of {@code GET /v1/agent-scope-bundles} (active bundles only). */
public record BundlePage(
    @JsonProperty("bundles") List<Bundle> bundles,
    @JsonProperty("has_more") boolean hasMore,
    @JsonProperty("next_cursor") String nextCursor) {

  /** Copies {@code bundles}; {@code null} becomes empty. */
  public BundlePage {
    bundles = Copies.listOrEmpty(bundles);
  }
}
