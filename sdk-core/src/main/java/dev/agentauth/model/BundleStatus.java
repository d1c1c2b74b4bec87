package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonCreator;

/**
 * The {@code status} of a {@link Bundle}.
 *
 * <p>Open enum: {@link #of(String)} accepts any wire string; unknown values are kept verbatim
 * ({@link #isKnown()} is false) instead of failing, so a newer service never breaks an older
 * client.
 */
public final class BundleStatus extends WireEnum<BundleStatus.Known> {
  private static final Registry<Known, BundleStatus> REGISTRY =
      new Registry<>(Known.class, BundleStatus::new);

  /** {@code active}: usable as {@code bundle_id}. */
  public static final BundleStatus ACTIVE = REGISTRY.get(Known.ACTIVE);

  /** {@code deleted}: soft-deleted. */
  public static final BundleStatus DELETED = REGISTRY.get(Known.DELETED);

  private BundleStatus(String value, Known known) {
    super(value, known);
  }

  /**
   * Returns the constant for a known wire name, or a new instance carrying an unknown one.
   *
   * @throws NullPointerException if {@code value} is null
   */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static BundleStatus of(String value) {
    return REGISTRY.of(value);
  }

  /** The values of {@code BundleStatus} this SDK version knows. */
  public enum Known implements WireName {
    /** {@code active}: usable as {@code bundle_id}. */
    ACTIVE("active"),
    /** {@code deleted}: soft-deleted. */
    DELETED("deleted");

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
