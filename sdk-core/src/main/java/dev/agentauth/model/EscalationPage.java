package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/** One page of {@code GET /v1/escalations}. */
public record EscalationPage(
    @JsonProperty("escalations") List<Escalation> escalations,
    @JsonProperty("has_more") boolean hasMore,
    @JsonProperty("next_cursor") String nextCursor) {

  /** Copies {@code escalations}; {@code null} becomes empty. */
  public EscalationPage {
    escalations = Copies.listOrEmpty(escalations);
  }
}
