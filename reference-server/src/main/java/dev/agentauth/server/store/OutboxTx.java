package dev.agentauth.server.store;

/** The webhook outbox as what causes events sees it: one write per event. */
public interface OutboxTx {

  /**
   * Writes a pending delivery of {@code event} for every webhook of its workspace subscribed to its
   * type (none when there is none), in this transaction.
   */
  void enqueueWebhookEvent(WebhookEvent event);
}
