package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonCreator;

/**
 * Where the end-user's answer to a confirmation came from: the {@code via} of {@code POST
 * /v1/confirmations/{nonce}}, recorded in the receipt of the allow that used the approval.
 *
 * <p>Open enum: {@link #of(String)} accepts any wire string; unknown values are kept verbatim
 * ({@link #isKnown()} is false) instead of failing, so a newer service never breaks an older
 * client.
 */
public final class ConfirmationVia extends WireEnum<ConfirmationVia.Known> {
  private static final Registry<Known, ConfirmationVia> REGISTRY =
      new Registry<>(Known.class, ConfirmationVia::new);

  /** {@code api}: the application called the API itself (the default). */
  public static final ConfirmationVia API = REGISTRY.get(Known.API);

  /** {@code mcp_elicitation}: a tool server asked the user in their MCP client. */
  public static final ConfirmationVia MCP_ELICITATION = REGISTRY.get(Known.MCP_ELICITATION);

  /** {@code console}: the user answered in the server's console. */
  public static final ConfirmationVia CONSOLE = REGISTRY.get(Known.CONSOLE);

  private ConfirmationVia(String value, Known known) {
    super(value, known);
  }

  /**
   * Returns the constant for a known wire name, or a new instance carrying an unknown one.
   *
   * @throws NullPointerException if {@code value} is null
   */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static ConfirmationVia of(String value) {
    return REGISTRY.of(value);
  }

  /** The values of {@code ConfirmationVia} this SDK version knows. */
  public enum Known implements WireName {
    /** {@code api}: the application called the API itself (the default). */
    API("api"),
    /** {@code mcp_elicitation}: a tool server asked the user in their MCP client. */
    MCP_ELICITATION("mcp_elicitation"),
    /** {@code console}: the user answered in the server's console. */
    CONSOLE("console");

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
