package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/** One page of {@code GET /v1/tombstones}. */
public record TombstonePage(
    @JsonProperty("tombstones") List<Tombstone> tombstones,
    @JsonProperty("has_more") boolean hasMore,
    @JsonProperty("next_cursor") String nextCursor) {

  /** Copies {@code tombstones}; {@code null} becomes empty. */
  public TombstonePage {
    tombstones = Copies.listOrEmpty(tombstones);
  }
}
