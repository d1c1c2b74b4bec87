package dev.agentauth.server.store;

import java.time.Instant;

/**
 * One event for one webhook, and how its delivery went so far.
 *
 * @param status {@code pending}, {@code delivered}, {@code failed} (gave up) or {@code cancelled}
 *     (an expiry event whose escalation was resolved first)
 */
public record WebhookDeliveryRow(
    String workspaceId,
    String webhookId,
    String eventId,
    String type,
    Instant eventCreatedAt,
    String payload,
    String authorizationId,
    String subjectId,
    String status,
    int attempts,
    Instant nextAttemptAt,
    Instant lastAttemptAt,
    Integer lastStatusCode,
    String lastError,
    Instant deliveredAt) {

  /** A new pending delivery of {@code e} to {@code webhookId}. */
  public static WebhookDeliveryRow of(WebhookEvent e, String webhookId) {
    return new WebhookDeliveryRow(
        e.workspaceId(),
        webhookId,
        e.eventId(),
        e.type(),
        e.createdAt(),
        e.payload(),
        e.authorizationId(),
        e.subjectId(),
        "pending",
        0,
        e.dueAt(),
        null,
        null,
        null,
        null);
  }

  /** This delivery after {@code a}. */
  public WebhookDeliveryRow after(WebhookTx.Attempt a) {
    return new WebhookDeliveryRow(
        workspaceId,
        webhookId,
        eventId,
        type,
        eventCreatedAt,
        payload,
        authorizationId,
        subjectId,
        a.status(),
        attempts + (a.counted() ? 1 : 0),
        a.nextAttemptAt(),
        a.counted() ? a.at() : lastAttemptAt,
        a.counted() ? a.statusCode() : lastStatusCode,
        a.counted() ? a.error() : lastError,
        "delivered".equals(a.status()) ? a.at() : deliveredAt);
  }

  /** This pending delivery due at {@code at}. */
  public WebhookDeliveryRow dueAt(Instant at) {
    return new WebhookDeliveryRow(
        workspaceId,
        webhookId,
        eventId,
        type,
        eventCreatedAt,
        payload,
        authorizationId,
        subjectId,
        status,
        attempts,
        at,
        lastAttemptAt,
        lastStatusCode,
        lastError,
        deliveredAt);
  }
}
