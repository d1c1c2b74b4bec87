package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonCreator;

/**
 * The SDK-local {@code fallback_mode} of a fallback check result: what a check that got no answer
 * from the service decides.
 *
 * <p>Open enum: {@link #of(String)} accepts any wire string; unknown values are kept verbatim
 * ({@link #isKnown()} is false) instead of failing, so a newer service never breaks an older
 * client.
 */
public final class FallbackMode extends WireEnum<FallbackMode.Known> {
  private static final Registry<Known, FallbackMode> REGISTRY =
      new Registry<>(Known.class, FallbackMode::new);

  /** {@code fail_closed}: deny (the default). */
  public static final FallbackMode FAIL_CLOSED = REGISTRY.get(Known.FAIL_CLOSED);

  /** {@code fail_open}: allow. */
  public static final FallbackMode FAIL_OPEN = REGISTRY.get(Known.FAIL_OPEN);

  private FallbackMode(String value, Known known) {
    super(value, known);
  }

  /**
   * Returns the constant for a known wire name, or a new instance carrying an unknown one.
   *
   * @throws NullPointerException if {@code value} is null
   */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static FallbackMode of(String value) {
    return REGISTRY.of(value);
  }

  /** The values of {@code FallbackMode} this SDK version knows. */
  public enum Known implements WireName {
    /** {@code fail_closed}: deny (the default). */
    FAIL_CLOSED("fail_closed"),
    /** {@code fail_open}: allow. */
    FAIL_OPEN("fail_open");

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
