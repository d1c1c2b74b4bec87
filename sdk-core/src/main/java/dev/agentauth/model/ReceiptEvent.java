package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonCreator;

/**
 * The {@code event} of an event receipt (absent on scope receipts); also the {@code event} filter
 * of {@code GET /v1/receipts}.
 *
 * <p>Open enum: {@link #of(String)} accepts any wire string; unknown values are kept verbatim
 * ({@link #isKnown()} is false) instead of failing, so a newer service never breaks an older
 * client.
 */
public final class ReceiptEvent extends WireEnum<ReceiptEvent.Known> {
  private static final Registry<Known, ReceiptEvent> REGISTRY =
      new Registry<>(Known.class, ReceiptEvent::new);

  /** {@code authorization.create}: emitted by {@code POST /v1/authorizations}. */
  public static final ReceiptEvent AUTHORIZATION_CREATE = REGISTRY.get(Known.AUTHORIZATION_CREATE);

  /** {@code authorization.revoke}: emitted by {@code DELETE /v1/authorizations/{id}}. */
  public static final ReceiptEvent AUTHORIZATION_REVOKE = REGISTRY.get(Known.AUTHORIZATION_REVOKE);

  /** {@code escalation.resolve}: emitted by the first successful escalation resolution. */
  public static final ReceiptEvent ESCALATION_RESOLVE = REGISTRY.get(Known.ESCALATION_RESOLVE);

  private ReceiptEvent(String value, Known known) {
    super(value, known);
  }

  /**
   * Returns the constant for a known wire name, or a new instance carrying an unknown one.
   *
   * @throws NullPointerException if {@code value} is null
   */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static ReceiptEvent of(String value) {
    return REGISTRY.of(value);
  }

  /** The values of {@code ReceiptEvent} this SDK version knows. */
  public enum Known implements WireName {
    /** {@code authorization.create}: emitted by {@code POST /v1/authorizations}. */
    AUTHORIZATION_CREATE("authorization.create"),
    /** {@code authorization.revoke}: emitted by {@code DELETE /v1/authorizations/{id}}. */
    AUTHORIZATION_REVOKE("authorization.revoke"),
    /** {@code escalation.resolve}: emitted by the first successful escalation resolution. */
    ESCALATION_RESOLVE("escalation.resolve");

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
