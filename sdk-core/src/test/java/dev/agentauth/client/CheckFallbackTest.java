package dev.agentauth.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.model.CheckResponse;
import dev.agentauth.model.CheckResult;
import dev.agentauth.model.Decision;
import dev.agentauth.model.FallbackMode;
import dev.agentauth.model.Reason;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import org.junit.jupiter.api.Test;

/** decisions §13: what a check answers when the service cannot, and when it must throw instead. */
class CheckFallbackTest extends MockServerSupport {

  private static final CheckParams TWO_SCOPES =
      CheckParams.of("auth_1", "email.send", "docs.search");

  private void serviceUnavailable() {
    for (int i = 0; i < 3; i++) {
      server.enqueue(problem(503, "unavailable"));
    }
  }

  @Test
  void denialsAreResultsNotExceptions() {
    server.enqueue(fixture(200, "check-not-found.json"));

    CheckResult r =
        client.check(CheckParams.of("auth_missing", "email.send")).results().get("email.send");

    assertThat(r.decision()).isEqualTo(Decision.DENY);
    assertThat(r.reason()).isEqualTo(Reason.AUTHORIZATION_NOT_FOUND);
    assertThat(r.fallback()).isNull();
  }

  @Test
  void failClosedIsTheDefaultAndDeniesEveryScopeAfter5xxRetries() {
    serviceUnavailable();

    CheckResponse r = client.check(TWO_SCOPES);

    assertThat(server.getRequestCount()).isEqualTo(3);
    assertThat(r.policyVersion()).isEqualTo("sdk_fallback");
    assertThat(r.authorizationId()).isEqualTo("auth_1");
    assertThat(r.userId()).isNull();
    assertThat(r.results()).containsOnlyKeys("email.send", "docs.search");
    for (CheckResult result : r.results().values()) {
      assertThat(result.decision()).isEqualTo(Decision.DENY);
      assertThat(result.reason()).isEqualTo(Reason.FALLBACK_CLOSED_UNREACHABLE);
      assertThat(result.fallback()).isTrue();
      assertThat(result.fallbackMode()).isEqualTo(FallbackMode.FAIL_CLOSED);
      assertThat(result.receipt()).isNull();
    }
  }

  @Test
  void failOpenAppliesOnlyToTheScopesTheIntegratorChose() {
    AgentAuthClient c =
        clientBuilder().fallback(FallbackPolicy.failClosed().withFailOpen("docs.search")).build();
    serviceUnavailable();

    CheckResponse r = c.check(TWO_SCOPES);

    assertThat(r.results().get("email.send").decision()).isEqualTo(Decision.DENY);
    CheckResult docs = r.results().get("docs.search");
    assertThat(docs.decision()).isEqualTo(Decision.ALLOW);
    assertThat(docs.reason()).isEqualTo(Reason.FALLBACK_OPEN_UNREACHABLE);
    assertThat(docs.fallbackMode()).isEqualTo(FallbackMode.FAIL_OPEN);
    assertThat(docs.receipt()).isNull();
  }

  @Test
  void timeoutIsToldApartFromUnreachable() {
    AgentAuthClient c =
        clientBuilder()
            .checkTimeout(Duration.ofMillis(150))
            .fallback(FallbackPolicy.failOpen().withFailClosed("email.send"))
            .build();
    server.enqueue(
        new MockResponse.Builder(fixture(200, "check-mixed.json"))
            .headersDelay(2, TimeUnit.SECONDS)
            .build());

    ApiResponse<CheckResponse> r = c.checkWithResponse(TWO_SCOPES, RequestOptions.none());

    assertThat(r.value().results().get("email.send").reason())
        .isEqualTo(Reason.FALLBACK_CLOSED_TIMEOUT);
    assertThat(r.value().results().get("docs.search").reason())
        .isEqualTo(Reason.FALLBACK_OPEN_TIMEOUT);
    assertThat(r.fallbackCause()).isInstanceOf(RequestTimeoutException.class);
    assertThat(r.statusCode()).isZero();
    assertThat(r.requestId()).isNull();
  }

  @Test
  void connectionRefusedFallsBackAsUnreachable() {
    AgentAuthClient c =
        clientBuilder().baseUrl("http://127.0.0.1:" + RetryTest.unusedPort()).build();

    ApiResponse<CheckResponse> r = c.checkWithResponse(emailCheck(), RequestOptions.none());

    assertThat(r.value().results().get("email.send").reason())
        .isEqualTo(Reason.FALLBACK_CLOSED_UNREACHABLE);
    assertThat(r.fallbackCause()).isExactlyInstanceOf(ConnectionException.class);
  }

  @Test
  void disabledFallbackThrowsTheFailure() {
    AgentAuthClient c = clientBuilder().fallback(FallbackPolicy.disabled()).build();
    serviceUnavailable();

    assertThatThrownBy(() -> c.check(emailCheck()))
        .isInstanceOf(ServerException.class)
        .hasMessageContaining("POST /v1/check failed: HTTP 503");
  }

  @Test
  void disabledFallbackThrowsTimeouts() {
    AgentAuthClient c =
        clientBuilder()
            .checkTimeout(Duration.ofMillis(100))
            .fallback(FallbackPolicy.disabled())
            .build();
    server.enqueue(
        new MockResponse.Builder(fixture(200, "check-mixed.json"))
            .headersDelay(2, TimeUnit.SECONDS)
            .build());

    assertThatThrownBy(() -> c.check(emailCheck()))
        .isInstanceOf(RequestTimeoutException.class)
        .hasMessage("POST /v1/check timed out: no complete answer within 100 ms");
  }

  @Test
  void clientErrorsNeverFallBack() {
    server.enqueue(fixture(400, "problem-invalid-request.json"));
    assertThatThrownBy(() -> client.check(emailCheck())).isInstanceOf(BadRequestException.class);

    server.enqueue(fixture(401, "problem-unauthenticated.json"));
    assertThatThrownBy(() -> client.check(emailCheck()))
        .isInstanceOf(AuthenticationException.class);
  }

  @Test
  void rateLimitAfterRetriesIsThrownNotFallenBack() {
    for (int i = 0; i < 3; i++) {
      server.enqueue(
          new MockResponse.Builder(problem(429, "rate_limited"))
              .addHeader("Retry-After", "0")
              .build());
    }

    assertThatThrownBy(() -> client.check(emailCheck())).isInstanceOf(RateLimitException.class);
    assertThat(server.getRequestCount()).isEqualTo(3);
  }

  @Test
  void asyncCheckFallsBackToo() throws Exception {
    serviceUnavailable();

    CheckResponse r = client.async().check(TWO_SCOPES).get(5, TimeUnit.SECONDS);

    assertThat(r.policyVersion()).isEqualTo(FallbackPolicy.POLICY_VERSION);
    assertThat(r.results().get("email.send").reason())
        .isEqualTo(Reason.FALLBACK_CLOSED_UNREACHABLE);
    assertThat(timing.delays()).hasSize(2);
  }

  @Test
  void policyCannotMixDisabledWithPerScopeModes() {
    assertThatThrownBy(() -> FallbackPolicy.disabled().withFailOpen("docs.search"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("fallback is disabled");
  }

  @Test
  void policyResolvesModesPerScope() {
    FallbackPolicy p = FallbackPolicy.failClosed().withFailOpen("a", "b").withFailClosed("b");

    assertThat(p.modeFor("a")).isEqualTo(FallbackMode.FAIL_OPEN);
    assertThat(p.modeFor("b")).isEqualTo(FallbackMode.FAIL_CLOSED);
    assertThat(p.modeFor("other")).isEqualTo(FallbackMode.FAIL_CLOSED);
    assertThat(FallbackPolicy.disabled().modeFor("a")).isNull();
    assertThat(FallbackPolicy.disabled().isEnabled()).isFalse();
  }
}
