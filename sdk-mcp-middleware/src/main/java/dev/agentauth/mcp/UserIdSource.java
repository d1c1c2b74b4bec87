package dev.agentauth.mcp;

import io.modelcontextprotocol.common.McpTransportContext;
import java.util.Objects;
import java.util.function.Function;

/**
 * Where a guarded tool call's end-user identity ({@code user_id}) comes from. The guard has no
 * default: every integrator picks one of two sources, knowing the trade-off.
 *
 * <ul>
 *   <li><b>The trusted request context (recommended)</b>: {@link #transportContext(String)} or
 *       {@link #transportContext(Function)} read the identity that the server transport
 *       established, e.g. the authenticated HTTP session or token behind a streamable-HTTP
 *       transport, put into the {@link McpTransportContext} by the transport provider's {@code
 *       contextExtractor}. The model cannot change it.
 *   <li><b>The {@code user_id} tool argument</b>: {@link #argument()}, the service spec's
 *       behaviour. Tool arguments are written by the model, so the identity is
 *       <em>caller-controlled</em>: a prompt-injected model can name another user and act under
 *       that user's authorization. Use it only where the model's input is trusted as much as the
 *       user (a local stdio server for one user, say), or where the resolver independently checks
 *       that the named user is the caller. The argument must be declared in the tool's input
 *       schema: the MCP server validates arguments against it before any handler runs, and a schema
 *       with {@code "additionalProperties": false} that lacks {@code user_id} rejects the call.
 * </ul>
 *
 * <p>The source is asked on every call, with that call's {@link ToolCall}: nothing is kept per MCP
 * session. Over streamable HTTP the transport builds the transport context for each HTTP request,
 * so each request must carry its own credentials; the MCP session id is not one.
 *
 * <p>A source returning {@code null} or a blank string means "no user": the call is denied locally
 * with {@code missing_user_id}, without calling the service. Implementations must be fast and
 * non-blocking (they run on the transport's or Reactor's threads) and thread-safe.
 *
 * <pre>{@code
 * // streamable HTTP: the servlet transport puts the authenticated principal into the context
 * HttpServletStreamableServerTransportProvider.builder()
 *     .contextExtractor(req -> McpTransportContext.create(
 *         Map.of("user_id", ((MyPrincipal) req.getUserPrincipal()).opaqueId())))
 *     .build();
 * AgentAuthToolGuard guard = AgentAuthToolGuard.builder()
 *     .userIdSource(UserIdSource.transportContext("user_id"))
 *     ...
 * }</pre>
 */
@FunctionalInterface
public interface UserIdSource {

  /** The argument read by {@link #argument()}: {@value}. */
  String USER_ID_ARGUMENT = "user_id";

  /**
   * Returns the user id of {@code call}, or {@code null} when it has none.
   *
   * @param call the tool call being guarded
   */
  String userId(ToolCall call);

  /**
   * Returns the source reading the string tool argument {@code user_id}, as the service spec
   * describes. <b>Caller-controlled</b>: the model writes the arguments (see the class
   * documentation). The argument must be in each guarded tool's input schema.
   */
  static UserIdSource argument() {
    return argument(USER_ID_ARGUMENT);
  }

  /**
   * Returns the source reading the string tool argument {@code name}. <b>Caller-controlled</b>: the
   * model writes the arguments (see the class documentation). The argument must be in each guarded
   * tool's input schema.
   *
   * @throws IllegalArgumentException if {@code name} is blank
   */
  static UserIdSource argument(String name) {
    return new ArgumentUserIdSource(name);
  }

  /**
   * Returns the source reading the string value under {@code key} of the call's {@link
   * McpTransportContext}, as filled by the server transport (recommended: the model cannot change
   * it).
   *
   * @throws IllegalArgumentException if {@code key} is blank
   */
  static UserIdSource transportContext(String key) {
    Objects.requireNonNull(key, "key");
    if (key.isBlank()) {
      throw new IllegalArgumentException("expected a transport context key, found a blank string");
    }
    return transportContext(c -> c.get(key) instanceof String s ? s : null);
  }

  /**
   * Returns the source computing the user id from the call's {@link McpTransportContext}, as filled
   * by the server transport (recommended: the model cannot change it).
   *
   * @param fn returns the opaque user id, or {@code null} when the request carries none
   */
  static UserIdSource transportContext(Function<McpTransportContext, String> fn) {
    Objects.requireNonNull(fn, "fn");
    return call -> fn.apply(call.transportContext());
  }
}
