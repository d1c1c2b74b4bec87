package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonCreator;

/**
 * The {@code role} of an API key: which {@code /v1} endpoints the key may call.
 *
 * <table>
 *   <caption>What each role may call</caption>
 *   <tr><th>Role</th><th>May call</th></tr>
 *   <tr><td>{@code full}</td><td>everything under {@code /v1}; keys made before roles are
 *       {@code full}</td></tr>
 *   <tr><td>{@code app}</td><td>everything except resolving escalations and managing API
 *       keys</td></tr>
 *   <tr><td>{@code agent}</td><td>{@code POST /v1/check}; reading authorizations and
 *       receipts</td></tr>
 *   <tr><td>{@code tool_server}</td><td>everything {@code agent} may call, and answering
 *       confirmations ({@code POST /v1/confirmations/{nonce}}) with the user's own answer from
 *       the user's client; never give it to a process whose outbound calls a model can
 *       steer</td></tr>
 *   <tr><td>{@code approver}</td><td>reading and resolving escalations, under its own
 *       {@code approver_id}; reading authorizations and receipts</td></tr>
 *   <tr><td>{@code auditor}</td><td>every read except the API key list</td></tr>
 * </table>
 *
 * <p>Any role may read its own key ({@code GET /v1/api-keys/current}). Open enum: {@link
 * #of(String)} accepts any wire string; unknown values are kept verbatim ({@link #isKnown()} is
 * false) instead of failing, so a newer service never breaks an older client.
 */
public final class ApiKeyRole extends WireEnum<ApiKeyRole.Known> {
  private static final Registry<Known, ApiKeyRole> REGISTRY =
      new Registry<>(Known.class, ApiKeyRole::new);

  /** {@code full}: every {@code /v1} endpoint. */
  public static final ApiKeyRole FULL = REGISTRY.get(Known.FULL);

  /** {@code app}: the application that grants, confirms and reads; not approvals, not keys. */
  public static final ApiKeyRole APP = REGISTRY.get(Known.APP);

  /** {@code agent}: checks, and reads authorizations and receipts. */
  public static final ApiKeyRole AGENT = REGISTRY.get(Known.AGENT);

  /**
   * {@code tool_server}: what {@code agent} may do, and answering confirmations with the user's own
   * answer relayed from the user's client (MCP elicitation).
   */
  public static final ApiKeyRole TOOL_SERVER = REGISTRY.get(Known.TOOL_SERVER);

  /** {@code approver}: reads and resolves escalations under its own approver id. */
  public static final ApiKeyRole APPROVER = REGISTRY.get(Known.APPROVER);

  /** {@code auditor}: reads everything but the API key list. */
  public static final ApiKeyRole AUDITOR = REGISTRY.get(Known.AUDITOR);

  private ApiKeyRole(String value, Known known) {
    super(value, known);
  }

  /**
   * Returns the constant for a known wire name, or a new instance carrying an unknown one.
   *
   * @throws NullPointerException if {@code value} is null
   */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static ApiKeyRole of(String value) {
    return REGISTRY.of(value);
  }

  /** The values of {@code ApiKeyRole} this SDK version knows. */
  public enum Known implements WireName {
    /** {@code full}: every {@code /v1} endpoint. */
    FULL("full"),
    /** {@code app}: the application that grants, confirms and reads; not approvals, not keys. */
    APP("app"),
    /** {@code agent}: checks, and reads authorizations and receipts. */
    AGENT("agent"),
    /**
     * {@code tool_server}: what {@code agent} may do, and answering confirmations with the user's
     * own answer relayed from the user's client (MCP elicitation).
     */
    TOOL_SERVER("tool_server"),
    /** {@code approver}: reads and resolves escalations under its own approver id. */
    APPROVER("approver"),
    /** {@code auditor}: reads everything but the API key list. */
    AUDITOR("auditor");

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
