package dev.agentauth.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import mockwebserver3.MockResponse;
import mockwebserver3.SocketEffect;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Which failures are retried, how often, and how long the client waits in between. */
class RetryTest extends MockServerSupport {

  @ParameterizedTest(name = "HTTP {0} is retried")
  @ValueSource(ints = {408, 429, 500, 502, 503, 504})
  void retryableStatusIsRetriedThenSucceeds(int status) throws Exception {
    server.enqueue(problem(status, "transient"));
    server.enqueue(json(201, TOMBSTONE));

    var tombstone = client.tombstones().create("mailbox:42");

    assertThat(tombstone.resource()).isEqualTo("mailbox:42");
    assertThat(server.getRequestCount()).isEqualTo(2);
  }

  @ParameterizedTest(name = "HTTP {0} is not retried")
  @ValueSource(ints = {400, 401, 402, 403, 404, 409, 410, 413, 422})
  void otherClientErrorIsNotRetried(int status) {
    server.enqueue(problem(status, "nope"));
    server.enqueue(json(201, TOMBSTONE));

    assertThatThrownBy(() -> client.tombstones().create("mailbox:42"))
        .isInstanceOf(ApiException.class)
        .satisfies(e -> assertThat(((ApiException) e).statusCode()).isEqualTo(status));
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(timing.sleeps()).isEmpty();
  }

  @Test
  void atMostTwoRetriesByDefaultThenTheLastFailureIsThrown() {
    for (int i = 0; i < 4; i++) {
      server.enqueue(problem(503, "unavailable"));
    }

    assertThatThrownBy(() -> client.tombstones().list())
        .isInstanceOf(ServerException.class)
        .hasMessageContaining("HTTP 503 unavailable");
    assertThat(server.getRequestCount()).isEqualTo(3);
  }

  @Test
  void perCallMaxRetriesOverridesTheClientDefault() {
    server.enqueue(problem(503, "unavailable"));
    server.enqueue(json(200, "{\"tombstones\":[],\"has_more\":false,\"next_cursor\":null}"));

    assertThatThrownBy(
            () ->
                client
                    .tombstones()
                    .list(ListParams.none(), RequestOptions.builder().maxRetries(0).build()))
        .isInstanceOf(ServerException.class);
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void connectionDroppedBeforeTheAnswerIsRetried() throws Exception {
    server.enqueue(
        new MockResponse.Builder().onResponseStart(new SocketEffect.CloseSocket()).build());
    server.enqueue(json(201, TOMBSTONE));

    assertThat(client.tombstones().create("mailbox:42").resource()).isEqualTo("mailbox:42");
    assertThat(server.getRequestCount()).isEqualTo(2);
  }

  @Test
  void connectionRefusedIsRetriedThenThrownAsConnectionException() {
    AgentAuthClient refused =
        clientBuilder().baseUrl("http://127.0.0.1:" + unusedPort() + "/").build();

    assertThatThrownBy(() -> refused.tombstones().list())
        .isExactlyInstanceOf(ConnectionException.class)
        .hasMessageContaining("GET /v1/tombstones failed: could not connect");
    assertThat(timing.sleeps()).hasSize(2);
  }

  @Test
  void backoffGrowsExponentiallyWithJitterWithinBounds() {
    AgentAuthClient noJitter =
        clientBuilder()
            .maxRetries(4)
            .backoff(
                new dev.agentauth.client.internal.Backoff(
                    Duration.ofMillis(200), Duration.ofMillis(600), () -> 0.0))
            .build();
    for (int i = 0; i < 5; i++) {
      server.enqueue(problem(500, "internal_error"));
    }

    assertThatThrownBy(() -> noJitter.tombstones().list()).isInstanceOf(ServerException.class);

    // lower bounds (random 0): half of 200, 400, 600 (capped), 600 ms
    assertThat(timing.sleeps())
        .containsExactly(
            Duration.ofMillis(100),
            Duration.ofMillis(200),
            Duration.ofMillis(300),
            Duration.ofMillis(300));
  }

  @Test
  void backoffUpperBoundIsTheFullExponentialDelay() {
    AgentAuthClient fullJitter =
        clientBuilder()
            .backoff(
                new dev.agentauth.client.internal.Backoff(
                    Duration.ofMillis(200), Duration.ofSeconds(2), () -> 1.0))
            .build();
    server.enqueue(problem(502, "bad_gateway"));
    server.enqueue(problem(502, "bad_gateway"));
    server.enqueue(problem(502, "bad_gateway"));

    assertThatThrownBy(() -> fullJitter.tombstones().list()).isInstanceOf(ServerException.class);
    assertThat(timing.sleeps()).containsExactly(Duration.ofMillis(200), Duration.ofMillis(400));
  }

  @Test
  void retryAfterSecondsIsHonouredInsteadOfBackoff() {
    server.enqueue(
        new MockResponse.Builder(problem(429, "rate_limited"))
            .addHeader("Retry-After", "3")
            .build());
    server.enqueue(json(201, TOMBSTONE));

    client.tombstones().create("mailbox:42");

    assertThat(timing.sleeps()).containsExactly(Duration.ofSeconds(3));
  }

  @Test
  void retryAfterHttpDateIsHonoured() {
    String date =
        DateTimeFormatter.RFC_1123_DATE_TIME.format(
            FakeTiming.START.plusSeconds(2).atOffset(ZoneOffset.UTC));
    server.enqueue(
        new MockResponse.Builder(problem(503, "unavailable"))
            .addHeader("Retry-After", date)
            .build());
    server.enqueue(json(201, TOMBSTONE));

    client.tombstones().create("mailbox:42");

    assertThat(timing.sleeps()).containsExactly(Duration.ofSeconds(2));
  }

  @Test
  void retryAfterBeyondTheDeadlineStopsRetryingAndReportsTheWait() {
    server.enqueue(
        new MockResponse.Builder(problem(429, "rate_limited"))
            .addHeader("Retry-After", "30")
            .build());

    assertThatThrownBy(() -> client.tombstones().create("mailbox:42"))
        .isInstanceOfSatisfying(
            RateLimitException.class,
            e -> {
              assertThat(e.retryAfter()).isEqualTo(Duration.ofSeconds(30));
              assertThat(e.code()).isEqualTo("rate_limited");
            });
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(timing.sleeps()).isEmpty();
  }

  @Test
  void waitsNeverAddUpBeyondTheCallTimeout() {
    for (int i = 0; i < 11; i++) {
      server.enqueue(problem(503, "unavailable"));
    }
    RequestOptions opts =
        RequestOptions.builder().maxRetries(10).timeout(Duration.ofMillis(1000)).build();

    assertThatThrownBy(() -> client.tombstones().list(ListParams.none(), opts))
        .isInstanceOf(ServerException.class);

    assertThat(timing.totalWaited()).isLessThan(Duration.ofMillis(1000));
    // 150 + 300 + 600 ms fits in 1 s only up to the second wait
    assertThat(timing.sleeps()).containsExactly(Duration.ofMillis(150), Duration.ofMillis(300));
  }

  static int unusedPort() {
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      return s.getLocalPort();
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }
}
