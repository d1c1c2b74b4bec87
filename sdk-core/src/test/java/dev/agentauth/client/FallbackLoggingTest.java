package dev.agentauth.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.client.internal.FallbackLog;
import dev.agentauth.model.Decision;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import mockwebserver3.MockResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every check the fallback policy answers leaves a WARN line in the application's log, at most one
 * per kind of fallback every 10 s, with the count of the others; an allow by {@code fail_open} says
 * so in capitals, and the API key never appears.
 */
class FallbackLoggingTest extends MockServerSupport {

  private static final CheckParams TWO_SCOPES =
      CheckParams.of("auth_1", "email.send", "docs.search");
  private static final CheckParams EMAIL = CheckParams.of("auth_1", "email.send");
  private static final CheckParams DOCS = CheckParams.of("auth_1", "docs.search");

  private CapturedLog log;

  @BeforeEach
  void capture() {
    log = CapturedLog.fallbacks();
  }

  @AfterEach
  void release() {
    log.close();
  }

  /** No retries, so that only {@link FakeTiming#advance(Duration)} moves the clock. */
  private AgentAuthClient.Builder once() {
    return clientBuilder()
        .maxRetries(0)
        .fallback(FallbackPolicy.failClosed().withFailOpen("docs.search"));
  }

  private AgentAuthClient unreachable() {
    return once().baseUrl("http://127.0.0.1:" + RetryTest.unusedPort()).build();
  }

  private void unavailable(int times) {
    for (int i = 0; i < times; i++) {
      server.enqueue(problem(503, "unavailable"));
    }
  }

  @Test
  void aFailOpenAllowIsLoggedAtWarnAsAnAllowTheServiceDidNotGive() {
    unavailable(3);
    AgentAuthClient c =
        clientBuilder().fallback(FallbackPolicy.failClosed().withFailOpen("docs.search")).build();

    c.check(TWO_SCOPES);

    assertThat(log.records()).hasSize(1);
    assertThat(log.records().get(0).getLevel()).isEqualTo(Level.WARNING);
    assertThat(log.warnings().get(0))
        .startsWith("agentauth check fallback (server error), no decision from the service: ")
        .contains(
            "ALLOWED WITHOUT A DECISION by fail_open: [docs.search] (fallback_open_server_error)")
        .contains("denied by fail_closed: [email.send] (fallback_closed_server_error)")
        .contains("POST /v1/check failed: HTTP 503 unavailable")
        .endsWith("Whoever can slow or block the service decides every fail_open scope.");
  }

  @Test
  void aFailClosedDenialIsLoggedWithItsCauseAndNoWordOfAnAllow() {
    unreachable().check(EMAIL);

    assertThat(log.warnings())
        .singleElement()
        .asString()
        .startsWith("agentauth check fallback (unreachable), no decision from the service: ")
        .contains("denied by fail_closed: [email.send] (fallback_closed_unreachable)")
        .contains("could not connect")
        .doesNotContain("ALLOWED")
        .doesNotContain("fail_open");
  }

  @Test
  void aTimeoutIsNamedAsSuch() {
    AgentAuthClient c = once().checkTimeout(Duration.ofMillis(150)).build();
    server.enqueue(
        new MockResponse.Builder(fixture(200, "check-mixed.json"))
            .headersDelay(2, TimeUnit.SECONDS)
            .build());

    c.check(DOCS);

    assertThat(log.warnings())
        .singleElement()
        .asString()
        .startsWith("agentauth check fallback (timeout)")
        .contains("ALLOWED WITHOUT A DECISION by fail_open: [docs.search] (fallback_open_timeout)")
        .contains("timed out: no complete answer within 150 ms");
  }

  @Test
  void theApiKeyIsNeverLoggedEvenWhenTheFailureEchoesIt() {
    server.enqueue(
        new MockResponse.Builder()
            .code(502)
            .addHeader("Content-Type", "text/plain")
            .body("bad gateway for Authorization: Bearer " + API_KEY)
            .build());

    once().build().check(TWO_SCOPES);

    assertThat(log.warnings()).singleElement().asString().contains("HTTP 502");
    assertThat(log.warnings().get(0)).doesNotContain(API_KEY).contains("[redacted]");
  }

  @Test
  void atMostOneLinePerKindEveryTenSecondsAndTheNextSaysHowManyWereNotLogged() {
    AgentAuthClient c = unreachable();

    for (int i = 0; i < 5; i++) {
      c.check(EMAIL);
    }
    timing.advance(Duration.ofSeconds(9));
    c.check(EMAIL);
    assertThat(log.warnings()).hasSize(1);

    timing.advance(Duration.ofSeconds(1));
    c.check(EMAIL);

    assertThat(log.warnings()).hasSize(2);
    assertThat(log.warnings().get(1))
        .contains("denied by fail_closed: [email.send]")
        .contains("Not logged in the 10 s since the last line of this kind: 5 fallbacks.");
    assertThat(FallbackLog.INTERVAL).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void suppressedAllowsAreCountedScopeByScope() {
    AgentAuthClient c = unreachable();

    c.check(TWO_SCOPES);
    c.check(TWO_SCOPES);
    c.check(DOCS);
    timing.advance(Duration.ofSeconds(10));
    c.check(DOCS);

    assertThat(log.warnings()).hasSize(2);
    assertThat(log.warnings().get(1))
        .contains(
            "Not logged in the 10 s since the last line of this kind: 2 fallbacks, 2 scopes"
                + " ALLOWED WITHOUT A DECISION by fail_open.");
  }

  @Test
  void denialsNeverHideAnAllowNorOneCauseAnother() {
    AgentAuthClient c = unreachable();

    c.check(EMAIL);
    c.check(DOCS);
    unavailable(1);
    once().build().check(EMAIL);

    assertThat(log.warnings()).hasSize(3);
    assertThat(log.warnings().get(0)).contains("(unreachable)").doesNotContain("ALLOWED");
    assertThat(log.warnings().get(1)).contains("(unreachable)").contains("ALLOWED");
    assertThat(log.warnings().get(2)).contains("(server error)").doesNotContain("ALLOWED");
  }

  @Test
  void whenTheServiceAnswersAgainTheFallbacksNotLoggedAreCounted() {
    AgentAuthClient c = once().build();
    unavailable(4);
    for (int i = 0; i < 4; i++) {
      assertThat(c.check(DOCS).results().get("docs.search").decision()).isEqualTo(Decision.ALLOW);
    }
    server.enqueue(json(200, CHECK_ALLOW));
    timing.advance(Duration.ofSeconds(5));
    c.check(EMAIL);
    assertThat(log.warnings()).hasSize(1);

    server.enqueue(json(200, CHECK_ALLOW));
    server.enqueue(json(200, CHECK_ALLOW));
    timing.advance(Duration.ofSeconds(5));
    c.check(EMAIL);
    c.check(EMAIL);

    assertThat(log.warnings()).hasSize(2);
    assertThat(log.warnings().get(1))
        .isEqualTo(
            "agentauth check fallbacks (server error, fail_open allowed): the service answers"
                + " checks again. Not logged in the 10 s since the last line of this kind: 3"
                + " fallbacks, 3 scopes ALLOWED WITHOUT A DECISION by fail_open.");
  }

  @Test
  void answersFromTheServiceAndThrownFailuresLogNothing() {
    server.enqueue(json(200, CHECK_ALLOW));
    unavailable(1);

    client.check(emailCheck());
    AgentAuthClient disabled =
        clientBuilder().fallback(FallbackPolicy.disabled()).maxRetries(0).build();
    assertThatThrownBy(() -> disabled.check(EMAIL)).isInstanceOf(ServerException.class);

    assertThat(log.records()).isEmpty();
  }

  @Test
  void theAsyncViewLogsAndSharesTheLimitOfItsClient() throws Exception {
    AgentAuthClient c = unreachable();

    c.async().check(DOCS).get(5, TimeUnit.SECONDS);
    c.check(DOCS);
    c.async().check(DOCS).get(5, TimeUnit.SECONDS);
    assertThat(log.warnings())
        .singleElement()
        .asString()
        .contains("ALLOWED WITHOUT A DECISION by fail_open: [docs.search]");

    timing.advance(Duration.ofSeconds(10));
    c.async().check(DOCS).get(5, TimeUnit.SECONDS);

    assertThat(log.warnings()).hasSize(2);
    assertThat(log.warnings().get(1))
        .contains("2 fallbacks, 2 scopes ALLOWED WITHOUT A DECISION by fail_open.");
  }

  @Test
  void anAsyncAnswerFromTheServiceLogsTheCountToo() throws Exception {
    AgentAuthClient c = once().build();
    unavailable(2);
    c.async().check(EMAIL).get(5, TimeUnit.SECONDS);
    c.async().check(EMAIL).get(5, TimeUnit.SECONDS);
    timing.advance(Duration.ofSeconds(10));
    server.enqueue(json(200, CHECK_ALLOW));

    c.async().check(EMAIL).get(5, TimeUnit.SECONDS);

    assertThat(log.warnings()).hasSize(2);
    assertThat(log.warnings().get(1))
        .isEqualTo(
            "agentauth check fallbacks (server error, fail_closed denied): the service answers"
                + " checks again. Not logged in the 10 s since the last line of this kind: 1"
                + " fallback.");
  }
}
