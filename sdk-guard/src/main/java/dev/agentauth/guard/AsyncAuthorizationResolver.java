package dev.agentauth.guard;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * The non-blocking form of {@link AuthorizationResolver}, for lookups that need I/O (a database, a
 * cache server). An empty result (or a blank id) denies the call locally with {@code
 * authorization_not_found}; a failed stage propagates as an error and the tool does not run.
 *
 * <p>The blocking ({@code SyncToolSpecification}) path waits for the stage to complete. Must be
 * thread-safe.
 */
@FunctionalInterface
public interface AsyncAuthorizationResolver {

  /**
   * Returns a stage completing with the authorization id for {@code userId}'s call of {@code
   * toolName}, or with empty to deny.
   *
   * @param userId the caller, as the adapter identified them; never null or blank
   * @param toolName the called tool's name (before any scope mapping)
   * @param arguments the call's arguments, read-only; written by the model, so untrusted
   */
  CompletionStage<Optional<String>> resolve(
      String userId, String toolName, Map<String, Object> arguments);
}
