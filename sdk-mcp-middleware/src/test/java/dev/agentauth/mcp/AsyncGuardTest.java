package dev.agentauth.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import dev.agentauth.client.FallbackPolicy;
import dev.agentauth.client.ServerException;
import dev.agentauth.model.FallbackMode;
import dev.agentauth.model.Reason;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpServerFeatures.AsyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/** The async decorator: same outcomes as the blocking one, without ever waiting on a thread. */
class AsyncGuardTest extends GuardTestSupport {

  @Test
  void allowRunsTheToolOnTheAsyncSchedulerNotOnAnHttpThread() {
    server.enqueue(allow("send_email"));

    CallToolResult r = call(guard().build().wrap(asyncTool("send_email")));

    assertThat(text(r)).isEqualTo("ran send_email");
    assertThat(toolThreads).singleElement().asString().startsWith("parallel-");
  }

  @Test
  void denyConfirmAndEscalateReturnTheSameErrorResultsAsTheBlockingPath() {
    AgentAuthToolGuard g = guard().build();
    server.enqueue(deny("send_email", "scope_not_authorized"));
    server.enqueue(confirm("send_email"));
    server.enqueue(escalate("send_email", "security"));
    AsyncToolSpecification guarded = g.wrap(asyncTool("send_email"));

    CallToolResult denied = call(guarded);
    CallToolResult confirm = call(guarded);
    CallToolResult escalate = call(guarded);

    assertThat(denied.isError()).isTrue();
    assertThat(structured(denied))
        .containsExactly(
            entry("decision", "deny"),
            entry("reason", "scope_not_authorized"),
            entry("receipt_id", RECEIPT_ID),
            entry("message", ModelMessages.of("send_email", deniedResult())));
    assertThat(structured(confirm)).containsEntry("confirm_nonce", "nonce_1");
    assertThat(structured(escalate)).containsEntry("escalation_id", "esc_1");
    assertThat(toolThreads).isEmpty();
    assertThat(decisions).hasSize(3);
  }

  @Test
  void localDenialsNeedNoServiceCall() {
    AgentAuthToolGuard g = guard().authorizationResolver((u, t, a) -> Optional.empty()).build();
    AsyncToolSpecification guarded = g.wrap(asyncTool("send_email"));

    CallToolResult noUser =
        guarded
            .callHandler()
            .apply(asyncExchange(McpTransportContext.EMPTY), request("send_email", Map.of()))
            .block();
    CallToolResult noAuthorization = call(guarded);

    assertThat(structured(noUser))
        .containsEntry("reason", "missing_user_id")
        .containsEntry("local", true);
    assertThat(structured(noAuthorization))
        .containsEntry("reason", "authorization_not_found")
        .containsEntry("local", true);
    assertThat(server.getRequestCount()).isZero();
  }

  @Test
  void subscribingReturnsBeforeTheServiceAnswers() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    server.setDispatcher(
        new Dispatcher() {
          @Override
          public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
            release.await(5, TimeUnit.SECONDS);
            return allow("send_email");
          }
        });
    AsyncToolSpecification guarded = guard().build().wrap(asyncTool("send_email"));

    CompletableFuture<CallToolResult> result =
        guarded
            .callHandler()
            .apply(asyncExchange(McpTransportContext.EMPTY), request("send_email", u1()))
            .toFuture();

    assertThat(result).isNotDone();
    release.countDown();
    assertThat(text(result.get(5, TimeUnit.SECONDS))).isEqualTo("ran send_email");
  }

  @Test
  void anAsyncResolverIsAwaitedWithoutBlocking() throws Exception {
    CompletableFuture<Optional<String>> lookup = new CompletableFuture<>();
    server.enqueue(allow("send_email"));
    AsyncToolSpecification guarded =
        guard()
            .asyncAuthorizationResolver((u, t, a) -> lookup)
            .build()
            .wrap(asyncTool("send_email"));

    CompletableFuture<CallToolResult> result =
        guarded
            .callHandler()
            .apply(asyncExchange(McpTransportContext.EMPTY), request("send_email", u1()))
            .toFuture();

    assertThat(result).isNotDone();
    assertThat(server.getRequestCount()).isZero();
    lookup.complete(Optional.of("auth_1"));
    assertThat(text(result.get(5, TimeUnit.SECONDS))).isEqualTo("ran send_email");
    assertThat(takeCheck().path("authorization_id").asText()).isEqualTo("auth_1");
  }

  @Test
  void nothingHappensUntilSubscription() {
    AsyncToolSpecification guarded = guard().build().wrap(asyncTool("send_email"));

    Mono<CallToolResult> unsubscribed =
        guarded
            .callHandler()
            .apply(asyncExchange(McpTransportContext.EMPTY), request("send_email", u1()));

    assertThat(unsubscribed).isNotNull();
    assertThat(server.getRequestCount()).isZero();
    assertThat(decisions).isEmpty();
  }

  @Test
  void serviceFailingFailClosedReturnsTheFallbackDenial() {
    server.enqueue(problem(503, "unavailable"));

    CallToolResult r = call(guard().build().wrap(asyncTool("send_email")));

    assertThat(structured(r))
        .containsEntry("reason", "fallback_closed_server_error")
        .containsEntry("fallback", true)
        .containsEntry("fallback_mode", "fail_closed");
    assertThat(toolThreads).isEmpty();
  }

  @Test
  void serviceFailingFailOpenRunsTheToolWithTheServerErrorReason() {
    server.enqueue(problem(500, "internal_error"));
    AgentAuthToolGuard g =
        guard()
            .client(
                clientBuilder()
                    .fallback(FallbackPolicy.failClosed().withFailOpen("docs_search"))
                    .build())
            .build();

    CallToolResult r = call(g.wrap(asyncTool("docs_search")));

    assertThat(text(r)).isEqualTo("ran docs_search");
    assertThat(decisions.get(0).reason()).isEqualTo(Reason.FALLBACK_OPEN_SERVER_ERROR);
    assertThat(decisions.get(0).fallbackMode()).isEqualTo(FallbackMode.FAIL_OPEN);
  }

  @Test
  void fallbackDisabledFailsTheMonoAndTheToolDoesNotRun() {
    server.enqueue(problem(503, "unavailable"));
    AgentAuthToolGuard g =
        guard().client(clientBuilder().fallback(FallbackPolicy.disabled()).build()).build();

    assertThatThrownBy(() -> call(g.wrap(asyncTool("send_email"))))
        .isInstanceOf(ServerException.class);
    assertThat(toolThreads).isEmpty();
  }

  @Test
  void aCustomSchedulerRunsTheTool() {
    server.enqueue(allow("send_email"));
    Scheduler scheduler = Schedulers.newSingle("guarded-tools", true);
    try {
      AgentAuthToolGuard g = guard().asyncScheduler(scheduler).build();

      call(g.wrap(asyncTool("send_email")));

      assertThat(toolThreads).singleElement().asString().startsWith("guarded-tools");
    } finally {
      scheduler.dispose();
    }
  }

  private static dev.agentauth.model.CheckResult deniedResult() {
    return new dev.agentauth.model.CheckResult(
        dev.agentauth.model.Decision.DENY,
        Reason.SCOPE_NOT_AUTHORIZED,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null);
  }
}
