package dev.agentauth.spring;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.AuthorizationListParams;
import dev.agentauth.client.ConnectionException;
import dev.agentauth.client.RequestTimeoutException;
import dev.agentauth.client.ServerException;
import dev.agentauth.mcp.AsyncAuthorizationResolver;
import dev.agentauth.mcp.AuthorizationResolver;
import dev.agentauth.model.Authorization;
import dev.agentauth.model.AuthorizationStatus;
import dev.agentauth.model.ScopeEntry;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

/**
 * Finds a tool call's authorization among the user's active ones for this application's agent
 * ({@code GET /v1/authorizations?user_id=…&agent_id=…&status=active}): the newest that grants the
 * tool's scope, else the newest (so that the service decides, and records, the denial), else none
 * (a local {@code authorization_not_found} denial). A grant the user gave another agent is never
 * used: the listing asks for the agent's, and any other agent's in the answer is dropped. A user's
 * list is cached for a short time; revocation still takes effect at once, because every call is
 * checked.
 *
 * <p>Blocking, with a non-blocking form ({@link #async()}) for async tools. Thread-safe.
 */
public final class ActiveGrantResolver implements AuthorizationResolver {

  /**
   * The authorization id checked when the service could not list the user's authorizations:
   * {@value} (a well-formed id no authorization has).
   */
  public static final String UNRESOLVED = "auth_unresolved";

  /** At most this many authorizations of one user are considered (one page). */
  static final int PAGE_LIMIT = 100;

  private final AgentAuthClient client;
  private final String agentId;
  private final Function<String, String> scopeMapper;
  private final Cache<String, List<Authorization>> cache;

  /**
   * @param client the client listing authorizations
   * @param agentId the agent whose authorizations are used (their {@code agent_id})
   * @param scopeMapper tool name to checked scope, as the guard maps it
   * @param ttl how long a user's list is kept ({@link Duration#ZERO}: not kept)
   * @throws IllegalArgumentException if {@code agentId} is blank
   */
  public ActiveGrantResolver(
      AgentAuthClient client, String agentId, Function<String, String> scopeMapper, Duration ttl) {
    this.client = Objects.requireNonNull(client, "client");
    Objects.requireNonNull(agentId, "agentId");
    if (agentId.isBlank()) {
      throw new IllegalArgumentException(
          "expected the agent id whose authorizations are used, found a blank string");
    }
    this.agentId = agentId;
    this.scopeMapper = Objects.requireNonNull(scopeMapper, "scopeMapper");
    Objects.requireNonNull(ttl, "ttl");
    this.cache =
        ttl.isZero() || ttl.isNegative()
            ? null
            : Caffeine.newBuilder().maximumSize(10_000).expireAfterWrite(ttl).build();
  }

  @Override
  public Optional<String> resolve(String userId, String toolName, Map<String, Object> arguments) {
    try {
      return resolved(userId, scopeMapper.apply(toolName)).join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw e;
    }
  }

  /** Returns the non-blocking form of this resolver, sharing its cache. */
  public AsyncAuthorizationResolver async() {
    return (userId, toolName, arguments) -> resolved(userId, scopeMapper.apply(toolName));
  }

  /**
   * The authorization for {@code scope}; when the service cannot answer the listing (connection
   * failure, timeout, 5xx), {@link #UNRESOLVED}: the check that follows meets the same outage, and
   * the client's fallback policy decides the call, as for any check the service cannot answer.
   */
  private CompletableFuture<Optional<String>> resolved(String userId, String scope) {
    return authorizations(userId)
        .handle(
            (list, failure) -> {
              if (failure == null) {
                return pick(list, scope);
              }
              Throwable cause =
                  failure instanceof CompletionException ? failure.getCause() : failure;
              if (cause instanceof ConnectionException
                  || cause instanceof RequestTimeoutException
                  || cause instanceof ServerException) {
                return Optional.of(UNRESOLVED);
              }
              throw failure instanceof CompletionException c ? c : new CompletionException(cause);
            });
  }

  private CompletableFuture<List<Authorization>> authorizations(String userId) {
    if (cache == null) {
      return fetch(userId);
    }
    // Only answers are kept: a failed listing is asked again by the next call.
    List<Authorization> cached = cache.getIfPresent(userId);
    if (cached != null) {
      return CompletableFuture.completedFuture(cached);
    }
    return fetch(userId)
        .thenApply(
            list -> {
              cache.put(userId, list);
              return list;
            });
  }

  private CompletableFuture<List<Authorization>> fetch(String userId) {
    AuthorizationListParams params =
        AuthorizationListParams.builder()
            .userId(userId)
            .agentId(agentId)
            .status(AuthorizationStatus.ACTIVE)
            .limit(PAGE_LIMIT)
            .build();
    return client
        .async()
        .authorizations()
        .list(params)
        .thenApply(page -> newestActiveFirst(page.authorizations()));
  }

  /**
   * The active authorizations of this agent in a listing, newest first: ordered once, when fetched.
   * The agent is checked again here, so that a service or proxy that drops the {@code agent_id}
   * filter cannot hand a tool another agent's grant.
   */
  private List<Authorization> newestActiveFirst(List<Authorization> authorizations) {
    return authorizations.stream()
        .filter(a -> AuthorizationStatus.ACTIVE.equals(a.status()))
        .filter(a -> agentId.equals(a.agentId()))
        .sorted(
            Comparator.comparing(
                    Authorization::createdAt, Comparator.nullsFirst(Comparator.naturalOrder()))
                .reversed())
        .toList();
  }

  /** The newest that grants {@code scope}, else the newest; {@code active} is newest first. */
  static Optional<String> pick(List<Authorization> active, String scope) {
    return active.stream()
        .filter(a -> grants(a, scope))
        .findFirst()
        .or(() -> active.stream().findFirst())
        .map(Authorization::authorizationId);
  }

  private static boolean grants(Authorization a, String scope) {
    for (ScopeEntry entry : a.scopes()) {
      if (scope.equals(entry.name())) {
        return true;
      }
    }
    return false;
  }

  /** Returns the agent whose authorizations are used (their {@code agent_id}). */
  public String agentId() {
    return agentId;
  }

  @Override
  public String toString() {
    return "ActiveGrantResolver{agentId=" + agentId + "}";
  }
}
