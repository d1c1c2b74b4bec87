package dev.agentauth.mcp;

import dev.agentauth.guard.GuardOutcome;
import dev.agentauth.guard.GuardedTool;
import dev.agentauth.guard.ToolGuard;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * The MCP side of a guarded call, sync and async: the user from the {@link UserIdSource}, the
 * decision from the framework-neutral {@link ToolGuard} (one sequence for both), then the tool, an
 * error result, or (with elicitation) the user's answer first.
 */
final class GuardedCalls {
  private final ToolGuard core;
  private final UserIdSource userIdSource;
  private final Executor continueOn;
  private final Confirmations confirmations;

  /** {@code confirmations} is {@code null} when elicitation is off. */
  GuardedCalls(
      ToolGuard core,
      UserIdSource userIdSource,
      Scheduler asyncScheduler,
      Confirmations confirmations) {
    this.core = core;
    this.userIdSource = userIdSource;
    this.continueOn = asyncScheduler::schedule;
    this.confirmations = confirmations;
  }

  /** A wrapped tool: its MCP definition, its MCP binding, and what the core prepared. */
  record Guarded(Tool tool, ResourceBinding binding, GuardedTool prepared) {}

  CallToolResult guardSync(
      Guarded g,
      Supplier<CallToolResult> delegate,
      McpTransportContext context,
      String sessionId,
      CallToolRequest request,
      Elicitor elicitor) {
    ToolCall call = toolCall(g.tool(), request, context, sessionId);
    GuardOutcome o = core.decide(g.prepared(), userIdOf(call), call.asGuardCall());
    if (o.allowed()) {
      return delegate.get();
    }
    if (asksUser(o, elicitor)) {
      Confirmations.Outcome outcome = confirmInClient(g, call, o, elicitor).block();
      return outcome.runs() ? delegate.get() : outcome.result();
    }
    return DecisionResults.error(g.tool(), o.body());
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
          ToolCall call = toolCall(g.tool(), request, context, sessionId);
          return Mono.fromFuture(
                  core.decideAsync(g.prepared(), userIdOf(call), call.asGuardCall(), continueOn))
              .flatMap(
                  o -> {
                    if (o.allowed()) {
                      return delegate.get();
                    }
                    if (asksUser(o, elicitor)) {
                      return confirmInClient(g, call, o, elicitor)
                          .flatMap(c -> c.runs() ? delegate.get() : Mono.just(c.result()));
                    }
                    return Mono.just(DecisionResults.error(g.tool(), o.body()));
                  });
        });
  }

  private boolean asksUser(GuardOutcome o, Elicitor elicitor) {
    return confirmations != null
        && elicitor != null
        && o.confirmable()
        && Confirmations.supported(elicitor.capabilities());
  }

  /**
   * Asks the user in their client, then approves or declines the nonce; after an approval the
   * core's re-check (same parameters) decides whether the tool runs. One sequence for sync and
   * async.
   */
  private Mono<Confirmations.Outcome> confirmInClient(
      Guarded g, ToolCall call, GuardOutcome confirm, Elicitor elicitor) {
    return confirmations.ask(
        g.tool(),
        g.binding(),
        call,
        confirm.check(),
        elicitor,
        () ->
            Mono.fromFuture(() -> core.recheckAsync(confirm, continueOn))
                .map(
                    r ->
                        r.allowed()
                            ? Confirmations.Outcome.RUN
                            : new Confirmations.Outcome(DecisionResults.error(g.tool(), r.body()))),
        () -> new Confirmations.Outcome(DecisionResults.error(g.tool(), core.declined(confirm))));
  }

  private static ToolCall toolCall(
      Tool tool, CallToolRequest request, McpTransportContext context, String sessionId) {
    return new ToolCall(
        tool.name(), request == null ? null : request.arguments(), context, sessionId);
  }

  private String userIdOf(ToolCall call) {
    return userIdSource.userId(call);
  }
}
