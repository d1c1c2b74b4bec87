package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonCreator;

/**
 * A workspace {@code plan}; Pro+ fields and endpoints need {@code pro}.
 *
 * <p>Open enum: {@link #of(String)} accepts any wire string; unknown values are kept verbatim
 * ({@link #isKnown()} is false) instead of failing, so a newer service never breaks an older
 * client.
 */
public final class Plan extends WireEnum<Plan.Known> {
  private static final Registry<Known, Plan> REGISTRY = new Registry<>(Known.class, Plan::new);

  /** {@code free}: no Pro+ features. */
  public static final Plan FREE = REGISTRY.get(Known.FREE);

  /** {@code pro}: escalations and budgets included. */
  public static final Plan PRO = REGISTRY.get(Known.PRO);

  private Plan(String value, Known known) {
    super(value, known);
  }

  /**
   * Returns the constant for a known wire name, or a new instance carrying an unknown one.
   *
   * @throws NullPointerException if {@code value} is null
   */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static Plan of(String value) {
    return REGISTRY.of(value);
  }

  /** The values of {@code Plan} this SDK version knows. */
  public enum Known implements WireName {
    /** {@code free}: no Pro+ features. */
    FREE("free"),
    /** {@code pro}: escalations and budgets included. */
    PRO("pro");

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
