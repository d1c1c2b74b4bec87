package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * One page of {@code GET /v1/authorizations}. When {@code has_more} is true, pass {@code
 * next_cursor} as {@code cursor}; {@code next_cursor} is written as {@code null} otherwise.
 */
public record AuthorizationPage(
    @JsonProperty("authorizations") List<Authorization> authorizations,
    @JsonProperty("has_more") boolean hasMore,
    @JsonProperty("next_cursor") String nextCursor) {

  /** Copies {@code authorizations}; {@code null} becomes empty. */
  public AuthorizationPage {
    authorizations = Copies.listOrEmpty(authorizations);
  }
}
