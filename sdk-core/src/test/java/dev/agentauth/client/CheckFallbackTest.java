package dev.agentauth.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.model.CheckResponse;
import dev.agentauth.model.CheckResult;
import dev.agentauth.model.Decision;
import dev.agentauth.model.FallbackMode;
import dev.agentauth.model.Reason;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.SocketEffect;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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
      assertThat(result.reason()).isEqualTo(Reason.FALLBACK_CLOSED_SERVER_ERROR);
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
    assertThat(docs.reason()).isEqualTo(Reason.FALLBACK_OPEN_SERVER_ERROR);
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

  // ---- which reason: the service failed (5xx), could not be reached, or did not answer in time

  private AgentAuthClient emailClosedDocsOpen() {
    return clientBuilder()
        .fallback(FallbackPolicy.failClosed().withFailOpen("docs.search"))
        .build();
  }

  private static void assertServerErrorFallback(ApiResponse<CheckResponse> r, int status) {
    CheckResult email = r.value().results().get("email.send");
    assertThat(email.decision()).isEqualTo(Decision.DENY);
    assertThat(email.reason()).isEqualTo(Reason.FALLBACK_CLOSED_SERVER_ERROR);
    assertThat(email.fallbackMode()).isEqualTo(FallbackMode.FAIL_CLOSED);
    CheckResult docs = r.value().results().get("docs.search");
    assertThat(docs.decision()).isEqualTo(Decision.ALLOW);
    assertThat(docs.reason()).isEqualTo(Reason.FALLBACK_OPEN_SERVER_ERROR);
    assertThat(docs.fallbackMode()).isEqualTo(FallbackMode.FAIL_OPEN);
    assertThat(docs.receipt()).isNull();
    assertThat(r.value().policyVersion()).isEqualTo(FallbackPolicy.POLICY_VERSION);
    assertThat(r.fallbackCause())
        .isInstanceOfSatisfying(
            ServerException.class, e -> assertThat(e.statusCode()).isEqualTo(status));
  }

  private void answerEveryAttempt(int status) {
    for (int i = 0; i < 3; i++) {
      server.enqueue(
          status == 502 ? fixture(502, "gateway-502.html") : problem(status, "internal_error"));
    }
  }

  @ParameterizedTest(name = "HTTP {0} after retries")
  @ValueSource(ints = {500, 502, 503})
  void serverErrorAfterRetriesFallsBackAsServerErrorNotUnreachable(int status) {
    answerEveryAttempt(status);

    ApiResponse<CheckResponse> r =
        emailClosedDocsOpen().checkWithResponse(TWO_SCOPES, RequestOptions.none());

    assertThat(server.getRequestCount()).isEqualTo(3);
    assertServerErrorFallback(r, status);
  }

  @ParameterizedTest(name = "HTTP {0} after retries, async")
  @ValueSource(ints = {500, 502, 503})
  void serverErrorAfterRetriesFallsBackAsServerErrorAsync(int status) throws Exception {
    answerEveryAttempt(status);

    ApiResponse<CheckResponse> r =
        emailClosedDocsOpen()
            .async()
            .checkWithResponse(TWO_SCOPES, RequestOptions.none())
            .get(5, TimeUnit.SECONDS);

    assertThat(server.getRequestCount()).isEqualTo(3);
    assertThat(timing.delays()).hasSize(2);
    assertServerErrorFallback(r, status);
  }

  @Test
  void theReasonNamesTheLastAttemptsFailure() {
    server.enqueue(
        new MockResponse.Builder().onResponseStart(new SocketEffect.CloseSocket()).build());
    server.enqueue(problem(503, "unavailable"));
    server.enqueue(problem(503, "unavailable"));

    assertThat(emailClosedDocsOpen().check(TWO_SCOPES).results().get("docs.search").reason())
        .isEqualTo(Reason.FALLBACK_OPEN_SERVER_ERROR);

    server.enqueue(problem(503, "unavailable"));
    server.enqueue(problem(503, "unavailable"));
    server.enqueue(
        new MockResponse.Builder().onResponseStart(new SocketEffect.CloseSocket()).build());

    ApiResponse<CheckResponse> dropped =
        emailClosedDocsOpen().checkWithResponse(TWO_SCOPES, RequestOptions.none());
    assertThat(dropped.value().results().get("docs.search").reason())
        .isEqualTo(Reason.FALLBACK_OPEN_UNREACHABLE);
    assertThat(dropped.fallbackCause()).isExactlyInstanceOf(ConnectionException.class);
  }

  @Test
  void connectionRefusedIsUnreachableForBothModesSyncAndAsync() throws Exception {
    AgentAuthClient refused =
        emailClosedDocsOpen()
            .newBuilder()
            .baseUrl("http://127.0.0.1:" + RetryTest.unusedPort())
            .build();

    for (CheckResponse r :
        List.of(
            refused.check(TWO_SCOPES),
            refused.async().check(TWO_SCOPES).get(5, TimeUnit.SECONDS))) {
      assertThat(r.results().get("email.send").reason())
          .isEqualTo(Reason.FALLBACK_CLOSED_UNREACHABLE);
      assertThat(r.results().get("docs.search").reason())
          .isEqualTo(Reason.FALLBACK_OPEN_UNREACHABLE);
    }
  }

  @Test
  void timeoutIsTimeoutAsync() throws Exception {
    AgentAuthClient c =
        emailClosedDocsOpen().newBuilder().checkTimeout(Duration.ofMillis(150)).build();
    server.enqueue(
        new MockResponse.Builder(fixture(200, "check-mixed.json"))
            .headersDelay(2, TimeUnit.SECONDS)
            .build());

    ApiResponse<CheckResponse> r =
        c.async().checkWithResponse(TWO_SCOPES, RequestOptions.none()).get(5, TimeUnit.SECONDS);

    assertThat(r.value().results().get("email.send").reason())
        .isEqualTo(Reason.FALLBACK_CLOSED_TIMEOUT);
    assertThat(r.value().results().get("docs.search").reason())
        .isEqualTo(Reason.FALLBACK_OPEN_TIMEOUT);
    assertThat(r.fallbackCause()).isInstanceOf(RequestTimeoutException.class);
  }

  // ---- 503 unavailable + Retry-After (the service shedding load)

  private static MockResponse unavailableRetryAfter(String seconds) {
    return new MockResponse.Builder(problem(503, "unavailable"))
        .addHeader("Retry-After", seconds)
        .build();
  }

  @Test
  void unavailableWithRetryAfterBeyondTheCheckTimeoutFallsBackAtOnce() throws Exception {
    // the default check timeout is 1 s; the service asks for at least 1 s
    server.enqueue(unavailableRetryAfter("1"));
    server.enqueue(unavailableRetryAfter("1"));

    CheckResponse sync = emailClosedDocsOpen().check(TWO_SCOPES);
    CheckResponse async = emailClosedDocsOpen().async().check(TWO_SCOPES).get(5, TimeUnit.SECONDS);

    assertThat(server.getRequestCount()).isEqualTo(2); // one attempt each, no early retry
    assertThat(timing.totalWaited()).isZero();
    for (CheckResponse r : List.of(sync, async)) {
      assertThat(r.results().get("email.send").reason())
          .isEqualTo(Reason.FALLBACK_CLOSED_SERVER_ERROR);
      assertThat(r.results().get("docs.search").reason())
          .isEqualTo(Reason.FALLBACK_OPEN_SERVER_ERROR);
    }
  }

  @Test
  void unavailableIsRetriedAfterRetryAfterWithinTheCheckTimeout() {
    AgentAuthClient c =
        emailClosedDocsOpen().newBuilder().checkTimeout(Duration.ofMillis(2500)).build();
    server.enqueue(unavailableRetryAfter("1"));
    server.enqueue(fixture(200, "check-mixed.json"));

    ApiResponse<CheckResponse> answered = c.checkWithResponse(TWO_SCOPES, RequestOptions.none());

    assertThat(answered.fallbackCause()).isNull();
    assertThat(answered.statusCode()).isEqualTo(200);
    assertThat(timing.sleeps()).containsExactly(Duration.ofSeconds(1));

    for (int i = 0; i < 3; i++) {
      server.enqueue(unavailableRetryAfter("1"));
    }

    ApiResponse<CheckResponse> persisting = c.checkWithResponse(TWO_SCOPES, RequestOptions.none());

    // 1 s + 1 s fit in 2.5 s: both retries are made, each after the wait the service asked for
    assertThat(server.getRequestCount()).isEqualTo(5);
    assertThat(timing.sleeps())
        .containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(1));
    assertServerErrorFallback(persisting, 503);
  }

  // ---- the service refused the request: never a fallback, whatever the mode

  @Test
  void aRejectedRequestNeverFallsBackEvenForFailOpenScopes() throws Exception {
    AgentAuthClient open = clientBuilder().fallback(FallbackPolicy.failOpen()).build();
    CheckParams crafted =
        CheckParams.builder()
            .authorizationId("auth_1")
            .scope("mail.send")
            .resource("mailbox/bob\ud800")
            .build();
    for (int i = 0; i < 2; i++) {
      server.enqueue(
          json(
              400,
              """
              {"type":"/errors/invalid_request","title":"Bad Request","status":400,
               "code":"invalid_request","request_id":"req_1","errors":[{"field":"resource",
               "message":"expected a string without unpaired surrogates"}]}
              """));
    }

    assertThatThrownBy(() -> open.check(crafted))
        .isInstanceOf(BadRequestException.class)
        .hasMessageContaining("resource: expected a string without unpaired surrogates");
    assertThatThrownBy(() -> open.async().check(crafted).get(5, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(BadRequestException.class);
    assertThat(server.getRequestCount()).isEqualTo(2); // never retried
    assertThat(timing.totalWaited()).isZero();
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
        .isEqualTo(Reason.FALLBACK_CLOSED_SERVER_ERROR);
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
