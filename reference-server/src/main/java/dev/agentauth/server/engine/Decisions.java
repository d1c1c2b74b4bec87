package dev.agentauth.server.engine;

/** Wire names of decisions, reasons and events the server issues. */
public final class Decisions {
  private Decisions() {}

  public static final String ALLOW = "allow";
  public static final String DENY = "deny";
  public static final String CONFIRM = "confirm";
  public static final String ESCALATE = "escalate";
  public static final String AUTHORIZATION_GRANTED = "authorization_granted";
  public static final String AUTHORIZATION_REVOKED = "authorization_revoked";
  public static final String ESCALATION_APPROVED = "escalation_approved";
  public static final String ESCALATION_REJECTED = "escalation_rejected";

  public static final String R_SCOPE_ACTIVE = "authorization_granted_scope_active";
  public static final String R_VIA_CONFIRMATION = "authorization_granted_via_confirmation";
  public static final String R_VIA_ESCALATION = "authorization_granted_via_escalation";
  public static final String R_NOT_FOUND = "authorization_not_found";
  public static final String R_REVOKED = "authorization_revoked";
  public static final String R_EXPIRED = "authorization_expired";
  public static final String R_SCOPE_NOT_AUTHORIZED = "scope_not_authorized";
  public static final String R_TOMBSTONED = "resource_tombstoned";
  public static final String R_RATE_LIMIT = "rate_limit_exceeded";
  public static final String R_BUDGET = "budget_exceeded";
  public static final String R_ESCALATION_REJECTED = "escalation_rejected";
  public static final String R_NEEDS_CONFIRMATION = "scope_requires_user_confirmation";
  public static final String R_NEEDS_ESCALATION = "escalation_required";
  public static final String R_CREATED = "authorization_created";

  public static final String EVENT_CREATE = "authorization.create";
  public static final String EVENT_REVOKE = "authorization.revoke";
  public static final String EVENT_RESOLVE = "escalation.resolve";
}
