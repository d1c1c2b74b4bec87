package dev.agentauth.server.store;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Webhooks and their delivery outbox. Events enter through {@link OutboxTx#enqueueWebhookEvent} in
 * the transaction that causes them; the delivery worker {@linkplain #claimWebhookDeliveries leases}
 * due deliveries, sends them outside any transaction, and {@linkplain #recordWebhookAttempt
 * records} each attempt afterwards.
 */
public interface WebhookTx extends OutboxTx {

  void insertWebhook(WebhookRow row);

  /** The workspace's webhooks in id order. */
  List<WebhookRow> webhooks(String workspaceId);

  Optional<WebhookRow> webhook(String workspaceId, String webhookId);

  /** Deletes a webhook and its deliveries; false when there was none. */
  boolean deleteWebhook(String workspaceId, String webhookId);

  /** A webhook's deliveries, newest event first ({@code page.after} is an event id). */
  Page<WebhookDeliveryRow> listWebhookDeliveries(
      String workspaceId, String webhookId, PageRequest page);

  /**
   * Brings the pending deliveries of {@code type} events of an authorization due later than {@code
   * at} forward to {@code at} (an authorization's revocation ends its escalations now).
   */
  void rescheduleWebhookEvents(String workspaceId, String authorizationId, String type, Instant at);

  /** A delivery leased for one attempt, with where it goes and the secret that signs it. */
  record Claimed(WebhookDeliveryRow delivery, String url, byte[] secret) {}

  /**
   * Leases up to {@code limit} pending deliveries due at {@code dueBy} (the server's clock) whose
   * lease (if any) ended by {@code leaseNow} (the real clock: leases guard against other processes,
   * whatever a test clock says), oldest due first, skipping the webhooks in {@code skipWebhooks}:
   * each gets {@code owner} and {@code leaseUntil}, so that no other worker — in any instance —
   * takes it before the lease ends. Rows another transaction holds are skipped.
   */
  List<Claimed> claimWebhookDeliveries(
      Instant dueBy,
      Instant leaseNow,
      Instant leaseUntil,
      String owner,
      Set<String> skipWebhooks,
      int limit);

  /**
   * The result of one attempt (or a decision not to send: {@code counted} false).
   *
   * @param status the delivery's status after it
   * @param nextAttemptAt when the next attempt is due; null unless {@code status} is pending
   */
  record Attempt(
      String webhookId,
      String eventId,
      String owner,
      Instant at,
      boolean counted,
      Integer statusCode,
      String error,
      String status,
      Instant nextAttemptAt) {}

  /**
   * Records {@code a} and ends the lease, if {@code a.owner} still holds it; false (nothing
   * changed) when it does not.
   */
  boolean recordWebhookAttempt(Attempt a);

  /** Ends every lease (a single-process store at start: no other worker can hold one). */
  int releaseWebhookLeases();

  /**
   * Deletes up to {@code limit} finished deliveries — delivered, failed or cancelled — whose event
   * happened before {@code eventBefore}, in no particular order, and returns how many it deleted
   * (fewer than {@code limit}: none is left, unless another transaction held some). Pending
   * deliveries are never deleted; rows another transaction holds are skipped.
   */
  int pruneWebhookDeliveries(Instant eventBefore, int limit);

  /**
   * The outbox as the metrics show it.
   *
   * @param pending deliveries still pending whose event has happened, counted up to a bound
   * @param oldestEvent when the event of the oldest of them happened; null when there is none
   */
  record Outbox(long pending, Instant oldestEvent) {}

  /**
   * The pending deliveries whose event happened by {@code now} (an expiry not yet reached is not
   * counted), at most {@code atMost} of them counted.
   */
  Outbox webhookOutbox(Instant now, long atMost);
}
