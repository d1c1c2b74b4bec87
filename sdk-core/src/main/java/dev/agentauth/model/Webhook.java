package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.util.List;

/**
 * A webhook: what {@code POST /v1/webhooks} answers and one entry of {@code GET /v1/webhooks}.
 *
 * @param id the webhook's id, {@code wh_...}
 * @param url where events are sent ({@code https://}, public addresses)
 * @param events the event types sent there (see {@link WebhookEventType})
 * @param secret the signing secret, {@code whsec_...}: only in the answer that created the webhook,
 *     otherwise null (and absent on the wire); receivers pass it to {@code Webhooks.verify}
 * @param createdAt when it was created
 */
public record Webhook(
    @JsonProperty("id") String id,
    @JsonProperty("url") String url,
    @JsonProperty("events") List<String> events,
    @JsonProperty("secret") @JsonInclude(JsonInclude.Include.NON_NULL) String secret,
    @JsonProperty("created_at") Instant createdAt) {

  /** Copies {@code events}; {@code null} becomes empty. */
  public Webhook {
    events = Copies.listOrEmpty(events);
  }

  /** Keeps the secret out of logs. */
  @Override
  public String toString() {
    return "Webhook[id="
        + id
        + ", url="
        + url
        + ", events="
        + events
        + ", secret="
        + (secret == null ? "null" : "<redacted>")
        + ", createdAt="
        + createdAt
        + "]";
  }
}
