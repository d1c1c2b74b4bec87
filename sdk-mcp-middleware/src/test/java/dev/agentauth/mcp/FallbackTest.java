package dev.agentauth.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.AuthenticationException;
import dev.agentauth.client.FallbackPolicy;
import dev.agentauth.client.ServerException;
import dev.agentauth.model.FallbackMode;
import dev.agentauth.model.Reason;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import org.junit.jupiter.api.Test;

/** decisions §13 and §14: tool calls while the service cannot answer, and calls it refuses. */
class FallbackTest extends GuardTestSupport {

  private AgentAuthToolGuard guardWith(AgentAuthClient c) {
    return guard().client(c).build();
  }

  @Test
  void serviceDownFailClosedReturnsADenialWithFallbackMarkers() throws Exception {
    server.enqueue(problem(503, "unavailable"));

    CallToolResult r = call(guard().build().wrap(syncTool("send_email")));

    assertThat(r.isError()).isTrue();
    assertThat(toolThreads).isEmpty();
    assertThat(structured(r))
        .containsExactly(
            entry("decision", "deny"),
            entry("reason", "fallback_closed_unreachable"),
            entry("fallback", true),
            entry("fallback_mode", "fail_closed"));
    assertThat(textJson(r)).isEqualTo(structured(r));
    GuardDecision d = decisions.get(0);
    assertThat(d.fallback()).isTrue();
    assertThat(d.fallbackMode()).isEqualTo(FallbackMode.FAIL_CLOSED);
    assertThat(d.receiptId()).isNull();
    assertThat(d.local()).isFalse();
  }

  @Test
  void serviceDownFailOpenRunsTheToolAndTellsTheListener() {
    server.enqueue(problem(503, "unavailable"));
    AgentAuthToolGuard g =
        guardWith(
            clientBuilder()
                .fallback(FallbackPolicy.failClosed().withFailOpen("docs_search"))
                .build());

    CallToolResult r = call(g.wrap(syncTool("docs_search")));

    assertThat(text(r)).isEqualTo("ran docs_search");
    GuardDecision d = decisions.get(0);
    assertThat(d.allowed()).isTrue();
    assertThat(d.reason()).isEqualTo(Reason.FALLBACK_OPEN_UNREACHABLE);
    assertThat(d.fallbackMode()).isEqualTo(FallbackMode.FAIL_OPEN);
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
  void aRejectedApiKeyIsThrownNotFallenBackOn() {
    server.enqueue(problem(401, "unauthenticated"));

    assertThatThrownBy(() -> call(guard().build().wrap(syncTool("send_email"))))
        .isInstanceOf(AuthenticationException.class);
    assertThat(toolThreads).isEmpty();
  }
}
