package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/** One page of {@code GET /v1/webhooks/{id}/deliveries}, newest event first. */
public record WebhookDeliveryPage(
    @JsonProperty("deliveries") List<WebhookDelivery> deliveries,
    @JsonProperty("has_more") boolean hasMore,
    @JsonProperty("next_cursor") String nextCursor) {

  /** Copies {@code deliveries}; {@code null} becomes empty. */
  public WebhookDeliveryPage {
    deliveries = Copies.listOrEmpty(deliveries);
  }
}
