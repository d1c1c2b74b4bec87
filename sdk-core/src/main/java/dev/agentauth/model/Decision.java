package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonCreator;

/**
 * The {@code decision} of a check result or signed receipt ({@code allow}, {@code deny}, {@code
 * confirm}, {@code escalate}) and of event receipts ({@code authorization_granted}, ...); also a
 * {@code decision} filter of {@code GET /v1/receipts}.
 *
 * <p>Open enum: {@link #of(String)} accepts any wire string; unknown values are kept verbatim
 * ({@link #isKnown()} is false) instead of failing, so a newer service never breaks an older
 * client.
 */
public final class Decision extends WireEnum<Decision.Known> {
  private static final Registry<Known, Decision> REGISTRY =
      new Registry<>(Known.class, Decision::new);

  /** {@code allow}: scope receipts and check results: the action may proceed. */
  public static final Decision ALLOW = REGISTRY.get(Known.ALLOW);

  /** {@code deny}: scope receipts and check results: the action must not proceed. */
  public static final Decision DENY = REGISTRY.get(Known.DENY);

  /** {@code confirm}: scope receipts and check results: the end-user must confirm first. */
  public static final Decision CONFIRM = REGISTRY.get(Known.CONFIRM);

  /**
   * {@code escalate}: scope receipts and check results: an approver must resolve an escalation
   * first.
   */
  public static final Decision ESCALATE = REGISTRY.get(Known.ESCALATE);

  /** {@code authorization_granted}: event receipt of {@code authorization.create}. */
  public static final Decision AUTHORIZATION_GRANTED = REGISTRY.get(Known.AUTHORIZATION_GRANTED);

  /** {@code authorization_revoked}: event receipt of {@code authorization.revoke}. */
  public static final Decision AUTHORIZATION_REVOKED = REGISTRY.get(Known.AUTHORIZATION_REVOKED);

  /** {@code escalation_approved}: event receipt of an approving {@code escalation.resolve}. */
  public static final Decision ESCALATION_APPROVED = REGISTRY.get(Known.ESCALATION_APPROVED);

  /** {@code escalation_rejected}: event receipt of a rejecting {@code escalation.resolve}. */
  public static final Decision ESCALATION_REJECTED = REGISTRY.get(Known.ESCALATION_REJECTED);

  private Decision(String value, Known known) {
    super(value, known);
  }

  /**
   * Returns the constant for a known wire name, or a new instance carrying an unknown one.
   *
   * @throws NullPointerException if {@code value} is null
   */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static Decision of(String value) {
    return REGISTRY.of(value);
  }

  /** The values of {@code Decision} this SDK version knows. */
  public enum Known implements WireName {
    /** {@code allow}: scope receipts and check results: the action may proceed. */
    ALLOW("allow"),
    /** {@code deny}: scope receipts and check results: the action must not proceed. */
    DENY("deny"),
    /** {@code confirm}: scope receipts and check results: the end-user must confirm first. */
    CONFIRM("confirm"),
    /**
     * {@code escalate}: scope receipts and check results: an approver must resolve an escalation
     * first.
     */
    ESCALATE("escalate"),
    /** {@code authorization_granted}: event receipt of {@code authorization.create}. */
    AUTHORIZATION_GRANTED("authorization_granted"),
    /** {@code authorization_revoked}: event receipt of {@code authorization.revoke}. */
    AUTHORIZATION_REVOKED("authorization_revoked"),
    /** {@code escalation_approved}: event receipt of an approving {@code escalation.resolve}. */
    ESCALATION_APPROVED("escalation_approved"),
    /** {@code escalation_rejected}: event receipt of a rejecting {@code escalation.resolve}. */
    ESCALATION_REJECTED("escalation_rejected");

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
