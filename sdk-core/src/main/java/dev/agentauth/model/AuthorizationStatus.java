package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonCreator;

/**
 * The {@code status} of an {@link Authorization}.
 *
 * <p>Open enum: {@link #of(String)} accepts any wire string; unknown values are kept verbatim
 * ({@link #isKnown()} is false) instead of failing, so a newer service never breaks an older
 * client.
 */
public final class AuthorizationStatus extends WireEnum<AuthorizationStatus.Known> {
  private static final Registry<Known, AuthorizationStatus> REGISTRY =
      new Registry<>(Known.class, AuthorizationStatus::new);

  /** {@code active}: usable for checks. */
  public static final AuthorizationStatus ACTIVE = REGISTRY.get(Known.ACTIVE);

  /** {@code revoked}: revoked; checks return {@code deny}. */
  public static final AuthorizationStatus REVOKED = REGISTRY.get(Known.REVOKED);

  /** {@code expired}: past {@code expires_at}; checks return {@code deny}. */
  public static final AuthorizationStatus EXPIRED = REGISTRY.get(Known.EXPIRED);

  private AuthorizationStatus(String value, Known known) {
    super(value, known);
  }

  /**
   * Returns the constant for a known wire name, or a new instance carrying an unknown one.
   *
   * @throws NullPointerException if {@code value} is null
   */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static AuthorizationStatus of(String value) {
    return REGISTRY.of(value);
  }

  /** The values of {@code AuthorizationStatus} this SDK version knows. */
  public enum Known implements WireName {
    /** {@code active}: usable for checks. */
    ACTIVE("active"),
    /** {@code revoked}: revoked; checks return {@code deny}. */
    REVOKED("revoked"),
    /** {@code expired}: past {@code expires_at}; checks return {@code deny}. */
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
