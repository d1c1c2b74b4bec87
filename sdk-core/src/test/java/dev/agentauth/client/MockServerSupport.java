package dev.agentauth.client;

import dev.agentauth.client.internal.Backoff;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * A MockWebServer on loopback and a client pointed at it with fake time and fixed jitter (random
 * 0.5, so retry {@code n} waits exactly 3/4 of its bound).
 */
abstract class MockServerSupport {
  static final String API_KEY = "sk_test_5ecret0key0never0shown";

  MockWebServer server;
  FakeTiming timing;
  AgentAuthClient client;

  @BeforeEach
  void startServer() throws IOException {
    server = new MockWebServer();
    server.start();
    timing = new FakeTiming();
    client = clientBuilder().build();
  }

  @AfterEach
  void stopServer() {
    server.close();
  }

  /**
   * The client under test. OkHttp's own transparent retry of failed connections is off so that
   * request counts show only the client's retries.
   */
  AgentAuthClient.Builder clientBuilder() {
    return AgentAuthClient.builder()
        .baseUrl(server.url("/"))
        .apiKey(API_KEY)
        .okHttpClient(new OkHttpClient.Builder().retryOnConnectionFailure(false).build())
        .timing(timing)
        .backoff(new Backoff(Duration.ofMillis(200), Duration.ofSeconds(2), () -> 0.5));
  }

  static MockResponse json(int code, String body) {
    return new MockResponse.Builder()
        .code(code)
        .addHeader("Content-Type", "application/json")
        .addHeader("X-Request-Id", "req_" + code)
        .body(body)
        .build();
  }

  static MockResponse problem(int code, String problemCode) {
    return new MockResponse.Builder()
        .code(code)
        .addHeader("Content-Type", "application/problem+json")
        .addHeader("X-Request-Id", "req_" + problemCode)
        .body(
            "{\"type\":\"/errors/"
                + problemCode
                + "\",\"title\":\"t\",\"status\":"
                + code
                + ",\"detail\":\"detail of "
                + problemCode
                + "\",\"code\":\""
                + problemCode
                + "\",\"request_id\":\"req_"
                + problemCode
                + "\"}")
        .build();
  }

  /** A response whose body is a fixture file, with the content type its name implies. */
  static MockResponse fixture(int code, String name) {
    String type =
        name.endsWith(".html")
            ? "text/html; charset=utf-8"
            : name.startsWith("problem-") ? "application/problem+json" : "application/json";
    return new MockResponse.Builder()
        .code(code)
        .addHeader("Content-Type", type)
        .addHeader("X-Request-Id", "req_fixture_" + code)
        .body(Fixtures.body(name))
        .build();
  }

  RecordedRequest take() throws InterruptedException {
    RecordedRequest r = server.takeRequest(5, TimeUnit.SECONDS);
    if (r == null) {
      throw new AssertionError("expected a request, none arrived");
    }
    return r;
  }

  static final String CHECK_ALLOW =
      """
      {"authorization_id":"auth_1","user_id":"u_1","agent_id":"bot",
       "authorization_expires_at":"2026-12-01T00:00:00.000Z","policy_version":"2026-11-21.1",
       "results":{"email.send":{"decision":"allow","reason":"authorization_granted_scope_active",
         "receipt":{"status":"pending","receipt_id":"01JDQ0000000000000000000AA",
           "ready_at_estimate":"2026-11-22T10:00:00.300Z",
           "url":"http://localhost/v1/receipts/01JDQ0000000000000000000AA"}}}}
      """;

  static final String TOMBSTONE =
      """
      {"resource":"mailbox:42","reason":null,"created_at":"2026-11-22T10:00:00.000Z"}
      """;

  static CheckParams emailCheck() {
    return CheckParams.of("auth_1", "email.send");
  }
}
