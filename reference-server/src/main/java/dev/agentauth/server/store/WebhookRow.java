package dev.agentauth.server.store;

import java.time.Instant;
import java.util.List;

/**
 * A webhook: where a workspace's events of the listed types are sent, and the secret that signs
 * them. Durable stores keep {@code secret} sealed with the master key.
 */
public record WebhookRow(
    String workspaceId,
    String webhookId,
    String url,
    List<String> events,
    byte[] secret,
    Instant createdAt) {

  public WebhookRow {
    events = List.copyOf(events);
  }

  /** Whether events of {@code type} go to this webhook. */
  public boolean subscribes(String type) {
    return events.contains(type);
  }
}
