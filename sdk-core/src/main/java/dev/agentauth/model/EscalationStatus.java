package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonCreator;

/**
 * The {@code status} of an {@link Escalation}, of the {@code escalation} object in a check result
 * and of an escalation resolution response.
 *
 * <p>Open enum: {@link #of(String)} accepts any wire string; unknown values are kept verbatim
 * ({@link #isKnown()} is false) instead of failing, so a newer service never breaks an older
 * client.
 */
public final class EscalationStatus extends WireEnum<EscalationStatus.Known> {
  private static final Registry<Known, EscalationStatus> REGISTRY =
      new Registry<>(Known.class, EscalationStatus::new);

  /** {@code pending}: awaiting an approver. */
  public static final EscalationStatus PENDING = REGISTRY.get(Known.PENDING);

  /** {@code approved}: approved by an approver. */
  public static final EscalationStatus APPROVED = REGISTRY.get(Known.APPROVED);

  /** {@code rejected}: rejected by an approver. */
  public static final EscalationStatus REJECTED = REGISTRY.get(Known.REJECTED);

  /** {@code expired}: not resolved within its 24-hour lifetime. */
  public static final EscalationStatus EXPIRED = REGISTRY.get(Known.EXPIRED);

  private EscalationStatus(String value, Known known) {
    super(value, known);
  }

  /**
   * Returns the constant for a known wire name, or a new instance carrying an unknown one.
   *
   * @throws NullPointerException if {@code value} is null
   */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static EscalationStatus of(String value) {
    return REGISTRY.of(value);
  }

  /** The values of {@code EscalationStatus} this SDK version knows. */
  public enum Known implements WireName {
    /** {@code pending}: awaiting an approver. */
    PENDING("pending"),
    /** {@code approved}: approved by an approver. */
    APPROVED("approved"),
    /** {@code rejected}: rejected by an approver. */
    REJECTED("rejected"),
    /** {@code expired}: not resolved within its 24-hour lifetime. */
    EXPIRED("expired");

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
