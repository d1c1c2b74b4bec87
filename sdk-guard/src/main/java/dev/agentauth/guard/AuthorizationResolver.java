package dev.agentauth.guard;

import java.util.Map;
import java.util.Optional;

/**
 * Finds the agentauth authorization that covers a user's tool call: the {@code authorization_id}
 * your application stored when the user granted the agent its scopes.
 *
 * <p>Returning {@link Optional#empty()} (or a blank id) denies the call at once, locally, with
 * {@code authorization_not_found} and no service call. Exceptions propagate: the tool does not run
 * and the adapter reports an error (for MCP, a JSON-RPC error).
 *
 * <p>In the guard's asynchronous path this runs inline on the calling thread (a Reactor, transport
 * or agent thread), so it must not block (an in-memory lookup is fine); for I/O, give the guard an
 * {@link AsyncAuthorizationResolver} instead. Must be thread-safe.
 *
 * <pre>{@code
 * AuthorizationResolver resolver =
 *     (userId, toolName, arguments) -> Optional.ofNullable(grants.get(userId));
 * }</pre>
 */
@FunctionalInterface
public interface AuthorizationResolver {

  /**
   * Returns the authorization id for {@code userId}'s call of {@code toolName}, or empty to deny.
   *
   * @param userId the caller, as the adapter identified them; never null or blank
   * @param toolName the called tool's name (before any scope mapping)
   * @param arguments the call's arguments, read-only; written by the model, so untrusted
   */
  Optional<String> resolve(String userId, String toolName, Map<String, Object> arguments);
}
