package dev.agentauth.mcp;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.ApiException;
import dev.agentauth.client.AuthenticationException;
import dev.agentauth.client.CheckParams;
import dev.agentauth.client.ForbiddenException;
import dev.agentauth.model.CheckResponse;
import dev.agentauth.model.CheckResult;
import dev.agentauth.model.Decision;
import dev.agentauth.model.Reason;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * The per-call sequence of {@link AgentAuthToolGuard}, sync and async: user, authorization,
 * resource, check, then the tool, an error result, or (with elicitation) the user's answer first.
 * The guard builds one from its builder and hands each wrapped tool's calls to it.
 */
final class GuardedCalls {
  private static final Logger log = LoggerFactory.getLogger(AgentAuthToolGuard.class);

  private final AgentAuthClient client;
  private final UserIdSource userIdSource;
  private final AuthorizationResolver resolver;
  private final AsyncAuthorizationResolver asyncResolver;
  private final Function<ToolCall, Map<String, Object>> contextExtractor;
  private final Function<ToolCall, String> sessionIdExtractor;
  private final Function<ToolCall, Long> estimatedCostExtractor;
  private final DecisionListener listener;
  private final Scheduler asyncScheduler;
  private final LongSupplier nanoTime;
  private final Confirmations confirmations;

  /** {@code confirmations} is {@code null} when elicitation is off. */
  GuardedCalls(
      AgentAuthClient client,
      UserIdSource userIdSource,
      AuthorizationResolver resolver,
      AsyncAuthorizationResolver asyncResolver,
      Function<ToolCall, Map<String, Object>> contextExtractor,
      Function<ToolCall, String> sessionIdExtractor,
      Function<ToolCall, Long> estimatedCostExtractor,
      DecisionListener listener,
      Scheduler asyncScheduler,
      LongSupplier nanoTime,
      Confirmations confirmations) {
    this.client = client;
    this.userIdSource = userIdSource;
    this.resolver = resolver;
    this.asyncResolver = asyncResolver;
    this.contextExtractor = contextExtractor;
    this.sessionIdExtractor = sessionIdExtractor;
    this.estimatedCostExtractor = estimatedCostExtractor;
    this.listener = listener;
    this.asyncScheduler = asyncScheduler;
    this.nanoTime = nanoTime;
    this.confirmations = confirmations;
  }

  /** A wrapped tool with what wrap time decided: its scope and its resource binding. */
  record Guarded(Tool tool, String scope, ResourceBinding binding) {}

  /** What the checks of one call share, once user, authorization and resource are known. */
  private record Call(
      Guarded g, ToolCall call, String userId, String authorizationId, CheckParams params) {}

  CallToolResult guardSync(
      Guarded g,
      Supplier<CallToolResult> delegate,
      McpTransportContext context,
      String sessionId,
      CallToolRequest request,
      Elicitor elicitor) {
    long start = nanoTime.getAsLong();
    ToolCall call = toolCall(g.tool(), request, context, sessionId);
    String userId = userIdOf(call);
    if (userId == null) {
      return localDenial(g, null, Reason.MISSING_USER_ID, null, start);
    }
    Optional<String> authorizationId =
        asyncResolver != null
            ? join(asyncResolver.resolve(userId, call.toolName(), call.arguments()))
            : clean(resolver.resolve(userId, call.toolName(), call.arguments()));
    if (authorizationId.isEmpty()) {
      return localDenial(g, userId, Reason.AUTHORIZATION_NOT_FOUND, null, start);
    }
    String resource;
    try {
      resource = g.binding().resourceFor(call);
    } catch (ResourceBindingException e) {
      return localDenial(g, userId, ResourceBindingException.REASON_VALUE, e, start);
    }
    Call c =
        new Call(
            g,
            call,
            userId,
            authorizationId.get(),
            checkParams(call, g, authorizationId.get(), resource));
    CheckResult result;
    try {
      result = resultFor(client.check(c.params()), g.scope());
    } catch (AuthenticationException | ForbiddenException e) {
      return refused(c, e, start);
    }
    notifyListener(serviceDecision(c, result, start));
    if (result.isAllowed()) {
      return delegate.get();
    }
    if (asksUser(result, elicitor)) {
      Confirmations.Outcome outcome = confirmInClient(c, result, elicitor, start).block();
      return outcome.runs() ? delegate.get() : outcome.result();
    }
    return DecisionResults.error(g.tool(), DecisionResults.body(g.tool().name(), result));
  }

  Mono<CallToolResult> guardAsync(
      Guarded g,
      Supplier<Mono<CallToolResult>> delegate,
      McpTransportContext context,
      String sessionId,
      CallToolRequest request,
      Elicitor elicitor) {
    return Mono.defer(
        () -> {
          long start = nanoTime.getAsLong();
          ToolCall call = toolCall(g.tool(), request, context, sessionId);
          String userId = userIdOf(call);
          if (userId == null) {
            return Mono.just(localDenial(g, null, Reason.MISSING_USER_ID, null, start));
          }
          Mono<Optional<String>> authorizationId =
              asyncResolver != null
                  ? Mono.fromCompletionStage(
                          () -> asyncResolver.resolve(userId, call.toolName(), call.arguments()))
                      .map(GuardedCalls::clean)
                      .defaultIfEmpty(Optional.empty())
                  : Mono.just(clean(resolver.resolve(userId, call.toolName(), call.arguments())));
          return authorizationId.flatMap(
              found -> {
                if (found.isEmpty()) {
                  return Mono.just(
                      localDenial(g, userId, Reason.AUTHORIZATION_NOT_FOUND, null, start));
                }
                String resource;
                try {
                  resource = g.binding().resourceFor(call);
                } catch (ResourceBindingException e) {
                  return Mono.just(
                      localDenial(g, userId, ResourceBindingException.REASON_VALUE, e, start));
                }
                Call c =
                    new Call(
                        g, call, userId, found.get(), checkParams(call, g, found.get(), resource));
                return checkAsync(c, start)
                    .flatMap(
                        checked -> {
                          if (checked.result() != null) {
                            return Mono.just(checked.result()); // refused key
                          }
                          CheckResult result = checked.check();
                          if (result.isAllowed()) {
                            return delegate.get();
                          }
                          if (asksUser(result, elicitor)) {
                            return confirmInClient(c, result, elicitor, start)
                                .flatMap(o -> o.runs() ? delegate.get() : Mono.just(o.result()));
                          }
                          return Mono.just(
                              DecisionResults.error(
                                  g.tool(), DecisionResults.body(g.tool().name(), result)));
                        });
              });
        });
  }

  /** A check's outcome: the service's result, or the error result of a refused guard key. */
  private record Checked(CheckResult check, CallToolResult result) {}

  /**
   * Checks without blocking, tells the listener, and continues on the async scheduler; a 401 or 403
   * (the guard's own key revoked or refused) becomes an error result.
   */
  private Mono<Checked> checkAsync(Call c, long start) {
    return Mono.fromFuture(() -> client.async().check(c.params()))
        .publishOn(asyncScheduler)
        .map(
            response -> {
              CheckResult result = resultFor(response, c.g().scope());
              notifyListener(serviceDecision(c, result, start));
              return new Checked(result, null);
            })
        .onErrorResume(
            e -> e instanceof AuthenticationException || e instanceof ForbiddenException,
            e -> Mono.just(new Checked(null, refused(c, (ApiException) e, start))));
  }

  private boolean asksUser(CheckResult result, Elicitor elicitor) {
    return confirmations != null
        && elicitor != null
        && Decision.CONFIRM.equals(result.decision())
        && result.confirmNonce() != null
        && Confirmations.supported(elicitor.capabilities());
  }

  /**
   * Asks the user in their client, then approves or declines the nonce; after an approval the
   * re-check (same parameters) decides whether the tool runs. One sequence for sync and async.
   */
  private Mono<Confirmations.Outcome> confirmInClient(
      Call c, CheckResult confirm, Elicitor elicitor, long start) {
    return confirmations.ask(
        c.g().tool(),
        c.g().binding(),
        c.call(),
        confirm,
        elicitor,
        () ->
            checkAsync(c, start)
                .map(
                    checked -> {
                      if (checked.result() != null) {
                        return new Confirmations.Outcome(checked.result());
                      }
                      CheckResult r = checked.check();
                      return r.isAllowed()
                          ? Confirmations.Outcome.RUN
                          : new Confirmations.Outcome(
                              DecisionResults.error(
                                  c.g().tool(), DecisionResults.body(c.g().tool().name(), r)));
                    }),
        declined -> notifyListener(declinedDecision(c, start)));
  }

  private CallToolResult refused(Call c, ApiException e, long start) {
    log.warn(
        "agentauth refused the guard's API key ({} {}) checking tool {}; the call is denied with"
            + " reason service_unavailable until the key is replaced (request id {})",
        e.statusCode(),
        e.code(),
        c.g().tool().name(),
        e.requestId());
    notifyListener(
        new GuardDecision(
            c.g().tool().name(),
            c.g().scope(),
            c.userId(),
            c.authorizationId(),
            Decision.DENY,
            DecisionResults.SERVICE_UNAVAILABLE,
            elapsed(start),
            null,
            false,
            null));
    return DecisionResults.error(
        c.g().tool(), DecisionResults.serviceUnavailableBody(c.g().tool().name()));
  }

  private GuardDecision declinedDecision(Call c, long start) {
    return new GuardDecision(
        c.g().tool().name(),
        c.g().scope(),
        c.userId(),
        c.authorizationId(),
        Decision.DENY,
        DecisionResults.CONFIRMATION_DECLINED,
        elapsed(start),
        null,
        false,
        null);
  }

  private static ToolCall toolCall(
      Tool tool, CallToolRequest request, McpTransportContext context, String sessionId) {
    return new ToolCall(
        tool.name(), request == null ? null : request.arguments(), context, sessionId);
  }

  private String userIdOf(ToolCall call) {
    String userId = userIdSource.userId(call);
    return userId == null || userId.isBlank() ? null : userId;
  }

  private CheckParams checkParams(
      ToolCall call, Guarded g, String authorizationId, String resource) {
    CheckParams.Builder b =
        CheckParams.builder().authorizationId(authorizationId).scope(g.scope()).resource(resource);
    if (contextExtractor != null) {
      Map<String, Object> context = contextExtractor.apply(call);
      if (context != null && !context.isEmpty()) {
        b.context(context);
      }
    }
    if (sessionIdExtractor != null) {
      b.sessionId(sessionIdExtractor.apply(call));
    }
    if (estimatedCostExtractor != null) {
      Long cost = estimatedCostExtractor.apply(call);
      if (cost != null) {
        b.estimatedCostMicros(cost);
      }
    }
    return b.build();
  }

  private static CheckResult resultFor(CheckResponse response, String scope) {
    CheckResult result = response.results().get(scope);
    if (result == null) {
      throw new IllegalStateException(
          "expected a result for scope \""
              + scope
              + "\" in the check response, found results for "
              + response.results().keySet());
    }
    return result;
  }

  private CallToolResult localDenial(
      Guarded g, String userId, Reason reason, ResourceBindingException cause, long start) {
    notifyListener(
        new GuardDecision(
            g.tool().name(),
            g.scope(),
            userId,
            null,
            Decision.DENY,
            reason,
            elapsed(start),
            null,
            true,
            null));
    return DecisionResults.error(
        g.tool(),
        DecisionResults.localBody(
            g.tool().name(), reason, cause == null ? null : cause.argument()));
  }

  private GuardDecision serviceDecision(Call c, CheckResult r, long start) {
    return new GuardDecision(
        c.call().toolName(),
        c.g().scope(),
        c.userId(),
        c.authorizationId(),
        r.decision(),
        r.reason(),
        elapsed(start),
        r.receipt() == null ? null : r.receipt().receiptId(),
        false,
        Boolean.TRUE.equals(r.fallback()) ? r.fallbackMode() : null);
  }

  private Duration elapsed(long start) {
    return Duration.ofNanos(Math.max(0, nanoTime.getAsLong() - start));
  }

  private void notifyListener(GuardDecision decision) {
    if (listener == null) {
      return;
    }
    try {
      listener.onDecision(decision);
    } catch (RuntimeException e) {
      log.warn(
          "agentauth decision listener failed for tool {} ({} {}); the call proceeds as decided",
          decision.toolName(),
          decision.decision(),
          decision.reason(),
          e);
    }
  }

  private static Optional<String> clean(Optional<String> id) {
    return id == null ? Optional.empty() : id.filter(s -> !s.isBlank());
  }

  private static Optional<String> join(CompletionStage<Optional<String>> stage) {
    Objects.requireNonNull(stage, "the async authorization resolver returned a null stage");
    try {
      return clean(stage.toCompletableFuture().join());
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw e;
    }
  }
}
