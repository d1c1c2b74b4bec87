package dev.agentauth.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.BadRequestException;
import dev.agentauth.client.FallbackPolicy;
import dev.agentauth.client.ServerException;
import dev.agentauth.model.FallbackMode;
import dev.agentauth.model.Reason;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import org.junit.jupiter.api.Test;

/** decisions §13 and §14: tool calls while the service cannot answer, and calls it refuses. */
class FallbackTest extends GuardTestSupport {

  private AgentAuthToolGuard guardWith(AgentAuthClient c) {
    return guard().client(c).build();
  }

  @Test
  void serviceFailingFailClosedReturnsADenialWithFallbackMarkers() throws Exception {
    server.enqueue(problem(503, "unavailable"));

    CallToolResult r = call(guard().build().wrap(syncTool("send_email")));

    assertThat(r.isError()).isTrue();
    assertThat(toolThreads).isEmpty();
    assertThat(structured(r))
        .containsExactly(
            entry("decision", "deny"),
            entry("reason", "fallback_closed_server_error"),
            entry("fallback", true),
            entry("fallback_mode", "fail_closed"),
            entry(
                "message",
                "The authorization service could not be reached, so send_email did not run;"
                    + " calling again later may help, and tell the user if it keeps failing."));
    assertThat(textJson(r)).isEqualTo(structured(r));
    GuardDecision d = decisions.get(0);
    assertThat(d.fallback()).isTrue();
    assertThat(d.reason()).isEqualTo(Reason.FALLBACK_CLOSED_SERVER_ERROR);
    assertThat(d.fallbackMode()).isEqualTo(FallbackMode.FAIL_CLOSED);
    assertThat(d.receiptId()).isNull();
    assertThat(d.local()).isFalse();
  }

  @Test
  void serviceFailingFailOpenRunsTheToolAndTellsTheListener() {
    server.enqueue(problem(500, "internal_error"));
    AgentAuthToolGuard g =
        guardWith(
            clientBuilder()
                .fallback(FallbackPolicy.failClosed().withFailOpen("docs_search"))
                .build());

    CallToolResult r = call(g.wrap(syncTool("docs_search")));

    assertThat(text(r)).isEqualTo("ran docs_search");
    GuardDecision d = decisions.get(0);
    assertThat(d.allowed()).isTrue();
    assertThat(d.reason()).isEqualTo(Reason.FALLBACK_OPEN_SERVER_ERROR);
    assertThat(d.fallbackMode()).isEqualTo(FallbackMode.FAIL_OPEN);
  }

  @Test
  void unreachableServiceIsToldApartFromAFailingOne() {
    AgentAuthToolGuard g =
        guardWith(
            clientBuilder()
                .baseUrl("http://127.0.0.1:" + unusedPort())
                .fallback(FallbackPolicy.failClosed().withFailOpen("docs_search"))
                .build());

    CallToolResult closed = call(g.wrap(syncTool("send_email")));
    CallToolResult open = call(g.wrap(syncTool("docs_search")));

    assertThat(structured(closed)).containsEntry("reason", "fallback_closed_unreachable");
    assertThat(text(open)).isEqualTo("ran docs_search");
    assertThat(decisions)
        .extracting(GuardDecision::reason)
        .containsExactly(Reason.FALLBACK_CLOSED_UNREACHABLE, Reason.FALLBACK_OPEN_UNREACHABLE);
  }

  @Test
  void eachFallbackIsLoggedOnceAtWarnByTheClientNamingTheToolsScope() {
    AgentAuthToolGuard g =
        guard()
            .client(
                clientBuilder()
                    .baseUrl("http://127.0.0.1:" + unusedPort())
                    .fallback(FallbackPolicy.failClosed().withFailOpen("mcp.docs_search"))
                    .build())
            .scopeMapper(name -> "mcp." + name)
            .build();

    try (CapturedLog log = CapturedLog.fallbacks()) {
      CallToolResult open = call(g.wrap(syncTool("docs_search")));
      CallToolResult closed = call(g.wrap(asyncTool("send_email")));

      assertThat(text(open)).isEqualTo("ran docs_search");
      assertThat(closed.isError()).isTrue();
      assertThat(log.warnings()).hasSize(2);
      assertThat(log.warnings().get(0))
          .contains(
              "ALLOWED WITHOUT A DECISION by fail_open: [mcp.docs_search]"
                  + " (fallback_open_unreachable)")
          .contains("Whoever can slow or block the service decides every fail_open scope.")
          .doesNotContain(API_KEY);
      assertThat(log.warnings().get(1))
          .contains("denied by fail_closed: [mcp.send_email] (fallback_closed_unreachable)")
          .doesNotContain("ALLOWED");
    }
  }

  @Test
  void aLocalDenialIsNotAFallbackAndLogsNothing() {
    AgentAuthToolGuard g =
        guard().authorizationResolver((userId, tool, args) -> Optional.empty()).build();

    try (CapturedLog log = CapturedLog.fallbacks()) {
      CallToolResult r = call(g.wrap(syncTool("send_email")));

      assertThat(structured(r)).containsEntry("reason", "authorization_not_found");
      assertThat(log.records()).isEmpty();
    }
  }

  @Test
  void inputTheServiceRejectsNeverRunsAFailOpenTool() {
    for (int i = 0; i < 2; i++) {
      server.enqueue(rejectedResource());
    }
    AgentAuthToolGuard g =
        guard()
            .client(clientBuilder().fallback(FallbackPolicy.failOpen()).build())
            .resourceExtractor(call -> call.stringArgument("to"))
            .build();
    Map<String, Object> crafted = Map.of("user_id", "u_1", "to", "mailbox/bob\ud800");

    assertThatThrownBy(
            () ->
                g.wrap(syncTool("send_email"))
                    .callHandler()
                    .apply(exchange(), request("send_email", crafted)))
        .isInstanceOf(BadRequestException.class);
    assertThatThrownBy(
            () ->
                g.wrap(asyncTool("send_email"))
                    .callHandler()
                    .apply(asyncExchange(McpTransportContext.EMPTY), request("send_email", crafted))
                    .block(Duration.ofSeconds(5)))
        .isInstanceOf(BadRequestException.class);
    assertThat(server.getRequestCount()).isEqualTo(2);
    assertThat(toolThreads).isEmpty();
    assertThat(decisions).isEmpty();
  }

  private static MockResponse rejectedResource() {
    return json(
        400,
        """
        {"type":"/errors/invalid_request","title":"Bad Request","status":400,
         "code":"invalid_request","request_id":"req_1","errors":[{"field":"resource",
         "message":"expected a string without unpaired surrogates"}]}
        """);
  }

  private static int unusedPort() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void checkTimeoutFallsBackWithTheTimeoutReason() {
    server.enqueue(
        new MockResponse.Builder(allow("send_email")).headersDelay(2, TimeUnit.SECONDS).build());
    AgentAuthToolGuard g = guardWith(clientBuilder().checkTimeout(Duration.ofMillis(100)).build());

    CallToolResult r = call(g.wrap(syncTool("send_email")));

    assertThat(structured(r))
        .containsEntry("reason", "fallback_closed_timeout")
        .containsEntry("fallback", true);
    assertThat(toolThreads).isEmpty();
  }

  @Test
  void fallbackDisabledThrowsAndTheToolDoesNotRun() {
    server.enqueue(problem(503, "unavailable"));
    AgentAuthToolGuard g = guardWith(clientBuilder().fallback(FallbackPolicy.disabled()).build());

    assertThatThrownBy(() -> call(g.wrap(syncTool("send_email"))))
        .isInstanceOf(ServerException.class);
    assertThat(toolThreads).isEmpty();
    assertThat(decisions).isEmpty();
  }

  @Test
  void aRejectedApiKeyIsNotFallenBackOn() {
    server.enqueue(problem(401, "unauthenticated"));

    CallToolResult r = call(guard().build().wrap(syncTool("send_email")));

    // decisions §19: a tool error the model can act on, not a fallback (and not a JSON-RPC error)
    assertThat(r.isError()).isTrue();
    assertThat(structured(r))
        .containsEntry("reason", "service_unavailable")
        .doesNotContainKey("fallback");
    assertThat(toolThreads).isEmpty();
  }
}
