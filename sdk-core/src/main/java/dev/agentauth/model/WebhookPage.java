package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/** {@code GET /v1/webhooks}: every webhook of the workspace, oldest first, without secrets. */
public record WebhookPage(@JsonProperty("webhooks") List<Webhook> webhooks) {

  /** Copies {@code webhooks}; {@code null} becomes empty. */
  public WebhookPage {
    webhooks = Copies.listOrEmpty(webhooks);
  }
}
