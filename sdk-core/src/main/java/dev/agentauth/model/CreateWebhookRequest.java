package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * Body of {@code POST /v1/webhooks}.
 *
 * @param url an {@code https://} URL whose host resolves to public addresses only
 * @param events 1 to 5 distinct event types ({@link WebhookEventType})
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CreateWebhookRequest(
    @JsonProperty("url") String url, @JsonProperty("events") List<String> events) {

  /** Copies {@code events} (nulls kept for the server to refuse). */
  public CreateWebhookRequest {
    events =
        events == null
            ? null
            : java.util.Collections.unmodifiableList(new java.util.ArrayList<>(events));
  }
}
