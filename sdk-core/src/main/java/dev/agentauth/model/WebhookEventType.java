package dev.agentauth.model;

import java.util.List;

/** The event types a webhook may subscribe to, as their wire names. */
public final class WebhookEventType {
  private WebhookEventType() {}

  /** An escalation was created and waits for an approver. */
  public static final String ESCALATION_CREATED = "escalation.created";

  /** An escalation was approved or rejected. */
  public static final String ESCALATION_RESOLVED = "escalation.resolved";

  /** An escalation's lifetime ended unresolved (or its authorization was revoked). */
  public static final String ESCALATION_EXPIRED = "escalation.expired";

  /** A check asked for the user's confirmation (a nonce was issued). */
  public static final String CONFIRMATION_REQUESTED = "confirmation.requested";

  /** An authorization was revoked. */
  public static final String AUTHORIZATION_REVOKED = "authorization.revoked";

  /** Every type, in this order. */
  public static final List<String> ALL =
      List.of(
          ESCALATION_CREATED,
          ESCALATION_RESOLVED,
          ESCALATION_EXPIRED,
          CONFIRMATION_REQUESTED,
          AUTHORIZATION_REVOKED);
}
