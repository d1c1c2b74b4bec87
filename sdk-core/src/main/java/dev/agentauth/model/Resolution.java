package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonCreator;

/**
 * The {@code resolution} of {@code POST /v1/escalations/{id}/resolve}.
 *
 * <p>Open enum: {@link #of(String)} accepts any wire string; unknown values are kept verbatim
 * ({@link #isKnown()} is false) instead of failing, so a newer service never breaks an older
 * client.
 */
public final class Resolution extends WireEnum<Resolution.Known> {
  private static final Registry<Known, Resolution> REGISTRY =
      new Registry<>(Known.class, Resolution::new);

  /** {@code approved}: the approver allows the action. */
  public static final Resolution APPROVED = REGISTRY.get(Known.APPROVED);

  /** {@code rejected}: the approver refuses the action. */
  public static final Resolution REJECTED = REGISTRY.get(Known.REJECTED);

  private Resolution(String value, Known known) {
    super(value, known);
  }

  /**
   * Returns the constant for a known wire name, or a new instance carrying an unknown one.
   *
   * @throws NullPointerException if {@code value} is null
   */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static Resolution of(String value) {
    return REGISTRY.of(value);
  }

  /** The values of {@code Resolution} this SDK version knows. */
  public enum Known implements WireName {
    /** {@code approved}: the approver allows the action. */
    APPROVED("approved"),
    /** {@code rejected}: the approver refuses the action. */
    REJECTED("rejected");

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
