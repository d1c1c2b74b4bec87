package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonCreator;

/**
 * The machine-readable {@code reason} of a check result or signed receipt: the service's check
 * reason codes, the event-receipt reasons, and the SDK-local fallback and middleware reasons.
 *
 * <p>Open enum: {@link #of(String)} accepts any wire string; unknown values are kept verbatim
 * ({@link #isKnown()} is false) instead of failing, so a newer service never breaks an older
 * client.
 */
public final class Reason extends WireEnum<Reason.Known> {
  private static final Registry<Known, Reason> REGISTRY = new Registry<>(Known.class, Reason::new);

  /**
   * {@code authorization_granted_scope_active}: {@code allow}: scope authorized and no confirm step
   * required.
   */
  public static final Reason AUTHORIZATION_GRANTED_SCOPE_ACTIVE =
      REGISTRY.get(Known.AUTHORIZATION_GRANTED_SCOPE_ACTIVE);

  /**
   * {@code authorization_granted_via_confirmation}: {@code allow}: a matching confirmation was
   * approved and its window is active.
   */
  public static final Reason AUTHORIZATION_GRANTED_VIA_CONFIRMATION =
      REGISTRY.get(Known.AUTHORIZATION_GRANTED_VIA_CONFIRMATION);

  /**
   * {@code authorization_granted_via_escalation}: {@code allow}: a matching escalation approval was
   * consumed.
   */
  public static final Reason AUTHORIZATION_GRANTED_VIA_ESCALATION =
      REGISTRY.get(Known.AUTHORIZATION_GRANTED_VIA_ESCALATION);

  /**
   * {@code authorization_not_found}: {@code deny}: no such authorization in the workspace (or,
   * SDK-local, the resolver returned none).
   */
  public static final Reason AUTHORIZATION_NOT_FOUND = REGISTRY.get(Known.AUTHORIZATION_NOT_FOUND);

  /**
   * {@code authorization_revoked}: {@code deny}: authorization revoked; also the reason of {@code
   * authorization.revoke} receipts.
   */
  public static final Reason AUTHORIZATION_REVOKED = REGISTRY.get(Known.AUTHORIZATION_REVOKED);

  /** {@code authorization_expired}: {@code deny}: authorization expired. */
  public static final Reason AUTHORIZATION_EXPIRED = REGISTRY.get(Known.AUTHORIZATION_EXPIRED);

  /**
   * {@code scope_not_authorized}: {@code deny}: scope not in the authorization, or a constraint
   * failed.
   */
  public static final Reason SCOPE_NOT_AUTHORIZED = REGISTRY.get(Known.SCOPE_NOT_AUTHORIZED);

  /** {@code resource_tombstoned}: {@code deny}: a workspace tombstone blocks the resource. */
  public static final Reason RESOURCE_TOMBSTONED = REGISTRY.get(Known.RESOURCE_TOMBSTONED);

  /** {@code rate_limit_exceeded}: {@code deny}: {@code max_per_day} reached. */
  public static final Reason RATE_LIMIT_EXCEEDED = REGISTRY.get(Known.RATE_LIMIT_EXCEEDED);

  /** {@code budget_exceeded}: {@code deny}: the estimated cost would exceed the budget. */
  public static final Reason BUDGET_EXCEEDED = REGISTRY.get(Known.BUDGET_EXCEEDED);

  /**
   * {@code escalation_rejected}: {@code deny}: a matching escalation was rejected; also the reason
   * of rejecting {@code escalation.resolve} receipts.
   */
  public static final Reason ESCALATION_REJECTED = REGISTRY.get(Known.ESCALATION_REJECTED);

  /**
   * {@code scope_requires_user_confirmation}: {@code confirm}: the scope requires end-user
   * confirmation.
   */
  public static final Reason SCOPE_REQUIRES_USER_CONFIRMATION =
      REGISTRY.get(Known.SCOPE_REQUIRES_USER_CONFIRMATION);

  /** {@code escalation_required}: {@code escalate}: the scope requires an approver. */
  public static final Reason ESCALATION_REQUIRED = REGISTRY.get(Known.ESCALATION_REQUIRED);

  /** {@code authorization_created}: reason of {@code authorization.create} receipts. */
  public static final Reason AUTHORIZATION_CREATED = REGISTRY.get(Known.AUTHORIZATION_CREATED);

  /** {@code escalation_approved}: reason of approving {@code escalation.resolve} receipts. */
  public static final Reason ESCALATION_APPROVED = REGISTRY.get(Known.ESCALATION_APPROVED);

  /**
   * {@code fallback_closed_timeout}: SDK fallback: the check timed out and the mode is {@code
   * fail_closed}.
   */
  public static final Reason FALLBACK_CLOSED_TIMEOUT = REGISTRY.get(Known.FALLBACK_CLOSED_TIMEOUT);

  /**
   * {@code fallback_closed_unreachable}: SDK fallback: the service was unreachable and the mode is
   * {@code fail_closed}.
   */
  public static final Reason FALLBACK_CLOSED_UNREACHABLE =
      REGISTRY.get(Known.FALLBACK_CLOSED_UNREACHABLE);

  /**
   * {@code fallback_closed_server_error}: SDK fallback: the service was reached but answered 5xx
   * after retries, and the mode is {@code fail_closed}.
   */
  public static final Reason FALLBACK_CLOSED_SERVER_ERROR =
      REGISTRY.get(Known.FALLBACK_CLOSED_SERVER_ERROR);

  /**
   * {@code fallback_open_timeout}: SDK fallback: the check timed out and the mode is {@code
   * fail_open}.
   */
  public static final Reason FALLBACK_OPEN_TIMEOUT = REGISTRY.get(Known.FALLBACK_OPEN_TIMEOUT);

  /**
   * {@code fallback_open_unreachable}: SDK fallback: the service was unreachable and the mode is
   * {@code fail_open}.
   */
  public static final Reason FALLBACK_OPEN_UNREACHABLE =
      REGISTRY.get(Known.FALLBACK_OPEN_UNREACHABLE);

  /**
   * {@code fallback_open_server_error}: SDK fallback: the service was reached but answered 5xx
   * after retries, and the mode is {@code fail_open}.
   */
  public static final Reason FALLBACK_OPEN_SERVER_ERROR =
      REGISTRY.get(Known.FALLBACK_OPEN_SERVER_ERROR);

  /**
   * {@code missing_user_id}: MCP middleware local denial: no user could be resolved for the tool
   * call.
   */
  public static final Reason MISSING_USER_ID = REGISTRY.get(Known.MISSING_USER_ID);

  private Reason(String value, Known known) {
    super(value, known);
  }

  /**
   * Returns the constant for a known wire name, or a new instance carrying an unknown one.
   *
   * @throws NullPointerException if {@code value} is null
   */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static Reason of(String value) {
    return REGISTRY.of(value);
  }

  /** The values of {@code Reason} this SDK version knows. */
  public enum Known implements WireName {
    /**
     * {@code authorization_granted_scope_active}: {@code allow}: scope authorized and no confirm
     * step required.
     */
    AUTHORIZATION_GRANTED_SCOPE_ACTIVE("authorization_granted_scope_active"),
    /**
     * {@code authorization_granted_via_confirmation}: {@code allow}: a matching confirmation was
     * approved and its window is active.
     */
    AUTHORIZATION_GRANTED_VIA_CONFIRMATION("authorization_granted_via_confirmation"),
    /**
     * {@code authorization_granted_via_escalation}: {@code allow}: a matching escalation approval
     * was consumed.
     */
    AUTHORIZATION_GRANTED_VIA_ESCALATION("authorization_granted_via_escalation"),
    /**
     * {@code authorization_not_found}: {@code deny}: no such authorization in the workspace (or,
     * SDK-local, the resolver returned none).
     */
    AUTHORIZATION_NOT_FOUND("authorization_not_found"),
    /**
     * {@code authorization_revoked}: {@code deny}: authorization revoked; also the reason of {@code
     * authorization.revoke} receipts.
     */
    AUTHORIZATION_REVOKED("authorization_revoked"),
    /** {@code authorization_expired}: {@code deny}: authorization expired. */
    AUTHORIZATION_EXPIRED("authorization_expired"),
    /**
     * {@code scope_not_authorized}: {@code deny}: scope not in the authorization, or a constraint
     * failed.
     */
    SCOPE_NOT_AUTHORIZED("scope_not_authorized"),
    /** {@code resource_tombstoned}: {@code deny}: a workspace tombstone blocks the resource. */
    RESOURCE_TOMBSTONED("resource_tombstoned"),
    /** {@code rate_limit_exceeded}: {@code deny}: {@code max_per_day} reached. */
    RATE_LIMIT_EXCEEDED("rate_limit_exceeded"),
    /** {@code budget_exceeded}: {@code deny}: the estimated cost would exceed the budget. */
    BUDGET_EXCEEDED("budget_exceeded"),
    /**
     * {@code escalation_rejected}: {@code deny}: a matching escalation was rejected; also the
     * reason of rejecting {@code escalation.resolve} receipts.
     */
    ESCALATION_REJECTED("escalation_rejected"),
    /**
     * {@code scope_requires_user_confirmation}: {@code confirm}: the scope requires end-user
     * confirmation.
     */
    SCOPE_REQUIRES_USER_CONFIRMATION("scope_requires_user_confirmation"),
    /** {@code escalation_required}: {@code escalate}: the scope requires an approver. */
    ESCALATION_REQUIRED("escalation_required"),
    /** {@code authorization_created}: reason of {@code authorization.create} receipts. */
    AUTHORIZATION_CREATED("authorization_created"),
    /** {@code escalation_approved}: reason of approving {@code escalation.resolve} receipts. */
    ESCALATION_APPROVED("escalation_approved"),
    /**
     * {@code fallback_closed_timeout}: SDK fallback: the check timed out and the mode is {@code
     * fail_closed}.
     */
    FALLBACK_CLOSED_TIMEOUT("fallback_closed_timeout"),
    /**
     * {@code fallback_closed_unreachable}: SDK fallback: the service was unreachable and the mode
     * is {@code fail_closed}.
     */
    FALLBACK_CLOSED_UNREACHABLE("fallback_closed_unreachable"),
    /**
     * {@code fallback_closed_server_error}: SDK fallback: the service was reached but answered 5xx
     * after retries, and the mode is {@code fail_closed}.
     */
    FALLBACK_CLOSED_SERVER_ERROR("fallback_closed_server_error"),
    /**
     * {@code fallback_open_timeout}: SDK fallback: the check timed out and the mode is {@code
     * fail_open}.
     */
    FALLBACK_OPEN_TIMEOUT("fallback_open_timeout"),
    /**
     * {@code fallback_open_unreachable}: SDK fallback: the service was unreachable and the mode is
     * {@code fail_open}.
     */
    FALLBACK_OPEN_UNREACHABLE("fallback_open_unreachable"),
    /**
     * {@code fallback_open_server_error}: SDK fallback: the service was reached but answered 5xx
     * after retries, and the mode is {@code fail_open}.
     */
    FALLBACK_OPEN_SERVER_ERROR("fallback_open_server_error"),
    /**
     * {@code missing_user_id}: MCP middleware local denial: no user could be resolved for the tool
     * call.
     */
    MISSING_USER_ID("missing_user_id");

    private final String wireName;

    Known(String wireName) {
      this.wireName = wireName;
    }

    /** Returns the exact wire string. */
    @Override
    public String wireName() {
      return wireName;
    }
  }
}
