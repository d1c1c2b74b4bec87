package dev.agentauth.mcp;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.model.Authorization;
import dev.agentauth.model.AuthorizationStatus;
import dev.agentauth.model.ScopeEntry;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpAsyncListFilter;
import io.modelcontextprotocol.server.McpSyncListFilter;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * A {@code tools/list} filter (decisions §17) that hides a tool from a caller who has no active
 * authorization including the tool's scope. Obtained from {@link AgentAuthToolGuard#toolFilter()},
 * it uses the guard's user id source, authorization resolver and scope mapper:
 *
 * <ol>
 *   <li>the caller's user id comes from the request's transport context (none: hidden);
 *   <li>the resolver maps (user, tool, no arguments) to an authorization id (none: hidden);
 *   <li>the authorization is read with {@code GET /v1/authorizations/{id}} and kept for the guard's
 *       {@linkplain AgentAuthToolGuard.Builder#visibilityCacheTtl(Duration) visibility cache TTL}
 *       (at most 10,000 authorizations): the tool is shown when its status is {@code active} and
 *       one of its scopes is the tool's scope.
 * </ol>
 *
 * <p>Listing never checks: it creates no receipt and spends no budget. <b>Hiding is a convenience,
 * never the enforcement</b>: a client may call a hidden tool by name, and the guard checks that
 * call like any other. For the same reason, when visibility cannot be decided (the service cannot
 * be reached, answers an error, or the resolver fails) the tool is <em>shown</em>, and a debug log
 * line says why; a revoked or expired authorization may keep its tools visible for up to the cache
 * TTL.
 *
 * <p>{@link #isVisible(McpTransportContext, Tool)} blocks on the service (the MCP SDK runs sync
 * filters off its event threads unless the server is built with immediate execution); {@link
 * #async()} returns the non-blocking form for async servers. Thread-safe.
 */
public final class AgentAuthToolFilter implements McpSyncListFilter<Tool> {

  /** The default visibility cache TTL: 10 seconds. */
  static final Duration DEFAULT_CACHE_TTL = Duration.ofSeconds(10);

  /** At most this many authorizations are kept. */
  static final int CACHE_SIZE = 10_000;

  private static final Logger log = LoggerFactory.getLogger(AgentAuthToolFilter.class);

  private final AgentAuthClient client;
  private final UserIdSource userIdSource;
  private final AuthorizationResolver resolver;
  private final AsyncAuthorizationResolver asyncResolver;
  private final Function<String, String> scopeMapper;
  private final Cache<String, Authorization> cache;
  private final Scheduler scheduler;

  AgentAuthToolFilter(
      AgentAuthClient client,
      UserIdSource userIdSource,
      AuthorizationResolver resolver,
      AsyncAuthorizationResolver asyncResolver,
      Function<String, String> scopeMapper,
      Duration cacheTtl,
      Scheduler scheduler) {
    this.client = client;
    this.userIdSource = userIdSource;
    this.resolver = resolver;
    this.asyncResolver = asyncResolver;
    this.scopeMapper = scopeMapper;
    this.scheduler = scheduler;
    this.cache =
        cacheTtl.isZero()
            ? null
            : Caffeine.newBuilder().maximumSize(CACHE_SIZE).expireAfterWrite(cacheTtl).build();
  }

  /** Returns whether {@code tool} is listed for the caller of this request; blocks on lookups. */
  @Override
  public boolean isVisible(McpTransportContext context, Tool tool) {
    return visible(context, tool).join();
  }

  /**
   * Returns the non-blocking form of this filter (same cache), for {@code
   * McpServer.async(...).addToolFilter(...)} and stateless async servers.
   */
  public McpAsyncListFilter<Tool> async() {
    return (context, tool) -> Mono.fromFuture(() -> visible(context, tool)).publishOn(scheduler);
  }

  /** Completes with the visibility of {@code tool}; never exceptionally. */
  CompletableFuture<Boolean> visible(McpTransportContext context, Tool tool) {
    String name = tool.name();
    try {
      String scope = scopeMapper.apply(name);
      String userId = userIdSource.userId(new ToolCall(name, Map.of(), context, null));
      if (userId == null || userId.isBlank()) {
        return CompletableFuture.completedFuture(false);
      }
      return resolve(userId, name)
          .thenCompose(
              id ->
                  id.isEmpty()
                      ? CompletableFuture.completedFuture(false)
                      : authorization(id.get()).thenApply(a -> grants(a, scope)))
          .exceptionally(e -> shownBecause(name, e));
    } catch (RuntimeException e) {
      return CompletableFuture.completedFuture(shownBecause(name, e));
    }
  }

  private CompletableFuture<Optional<String>> resolve(String userId, String toolName) {
    if (asyncResolver != null) {
      return asyncResolver
          .resolve(userId, toolName, Map.of())
          .toCompletableFuture()
          .thenApply(AgentAuthToolFilter::clean);
    }
    return CompletableFuture.completedFuture(clean(resolver.resolve(userId, toolName, Map.of())));
  }

  private CompletableFuture<Authorization> authorization(String id) {
    if (cache == null) {
      return client.async().authorizations().get(id);
    }
    // Only answers are kept: a failed lookup is asked again by the next listing.
    Authorization cached = cache.getIfPresent(id);
    if (cached != null) {
      return CompletableFuture.completedFuture(cached);
    }
    return client
        .async()
        .authorizations()
        .get(id)
        .thenApply(
            a -> {
              cache.put(id, a);
              return a;
            });
  }

  private static boolean grants(Authorization a, String scope) {
    if (!AuthorizationStatus.ACTIVE.equals(a.status())) {
      return false;
    }
    for (ScopeEntry entry : a.scopes()) {
      if (scope.equals(entry.name())) {
        return true;
      }
    }
    return false;
  }

  private static boolean shownBecause(String tool, Throwable e) {
    Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    log.debug(
        "agentauth shows tool {} in tools/list: its visibility could not be decided ({}); calls"
            + " are still checked",
        tool,
        cause.toString());
    return true;
  }

  private static Optional<String> clean(Optional<String> id) {
    return id == null ? Optional.empty() : id.filter(s -> !s.isBlank());
  }

  @Override
  public String toString() {
    return "AgentAuthToolFilter{userIdSource=" + userIdSource + "}";
  }
}
