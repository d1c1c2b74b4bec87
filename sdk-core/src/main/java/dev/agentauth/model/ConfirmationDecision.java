package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonCreator;

/**
 * The {@code decision} of a {@link ConfirmationResolution}.
 *
 * <p>Open enum: {@link #of(String)} accepts any wire string; unknown values are kept verbatim
 * ({@link #isKnown()} is false) instead of failing, so a newer service never breaks an older
 * client.
 */
public final class ConfirmationDecision extends WireEnum<ConfirmationDecision.Known> {
  private static final Registry<Known, ConfirmationDecision> REGISTRY =
      new Registry<>(Known.class, ConfirmationDecision::new);

  /** {@code approved}: the end-user approved. */
  public static final ConfirmationDecision APPROVED = REGISTRY.get(Known.APPROVED);

  /** {@code denied_by_user}: the end-user declined. */
  public static final ConfirmationDecision DENIED_BY_USER = REGISTRY.get(Known.DENIED_BY_USER);

  private ConfirmationDecision(String value, Known known) {
    super(value, known);
  }

  /**
   * Returns the constant for a known wire name, or a new instance carrying an unknown one.
   *
   * @throws NullPointerException if {@code value} is null
   */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static ConfirmationDecision of(String value) {
    return REGISTRY.of(value);
  }

  /** The values of {@code ConfirmationDecision} this SDK version knows. */
  public enum Known implements WireName {
    /** {@code approved}: the end-user approved. */
    APPROVED("approved"),
    /** {@code denied_by_user}: the end-user declined. */
    DENIED_BY_USER("denied_by_user");

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
