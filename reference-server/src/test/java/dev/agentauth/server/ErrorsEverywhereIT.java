package dev.agentauth.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Requests Jetty refuses before any route runs (decisions.md §16): each answer is problem+json with
 * the code for its status and a request id, never Jetty's HTML error page. Sent over a raw socket,
 * since no HTTP client writes these.
 */
class ErrorsEverywhereIT {
  private ServerHarness h;
  private RawHttp raw;

  @BeforeEach
  void start() {
    h = ServerHarness.start();
    raw = new RawHttp(h.server.port());
  }

  @AfterEach
  void stop() {
    h.close();
  }

  private static String get(String target, String... headers) {
    return "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + String.join("", headers) + "\r\n";
  }

  private static String post(String headers, String body) {
    return "POST /v1/check HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers + "\r\n" + body;
  }

  static List<Arguments> refused() {
    return List.of(
        Arguments.of("malformed percent-encoding", get("/v1/authorizations/%zz"), 400),
        Arguments.of("a path that is not UTF-8", get("/v1/authorizations/%ED%A0%80"), 400),
        // Passed on by Jetty's LEGACY URI rules, these made the route's path-id decoding fail: 500.
        Arguments.of("a %u escape in a path id", get("/v1/agent-scope-bundles/%u00e9"), 400),
        Arguments.of("a bad escape in a path parameter", get("/v1/escalations/G;q%xU"), 400),
        Arguments.of("a truncated escape in a path parameter", get("/v1/escalations/G;q%4"), 400),
        Arguments.of("a control character in the target", get("/v1/\u0001"), 400),
        Arguments.of("an asterisk target", get("*"), 400),
        Arguments.of("no request target", "garbage\r\n\r\n", 400),
        Arguments.of("no Host header", "GET /healthz HTTP/1.1\r\n\r\n", 400),
        Arguments.of("a URI that is too long", get("/" + "a".repeat(9_000)), 414),
        Arguments.of(
            "headers that are too large",
            get("/healthz", "X-Big: " + "a".repeat(10_000) + "\r\n"),
            431),
        Arguments.of("an unknown HTTP version", "GET /healthz HTTP/1.7\r\nHost: x\r\n\r\n", 505),
        Arguments.of(
            "HTTP/2 on an HTTP/1.1 connection", "GET /healthz HTTP/2.0\r\nHost: x\r\n\r\n", 426),
        Arguments.of(
            "a Content-Length that is not a number", post("Content-Length: abc\r\n", ""), 400),
        Arguments.of(
            "two different Content-Lengths",
            post("Content-Length: 2\r\nContent-Length: 3\r\n", "{}"),
            400),
        Arguments.of(
            "Content-Length with chunking",
            post("Content-Length: 2\r\nTransfer-Encoding: chunked\r\n", "0\r\n\r\n"),
            400),
        Arguments.of(
            "a transfer coding other than chunked", post("Transfer-Encoding: gzip\r\n", ""), 400),
        Arguments.of(
            "an unknown expectation",
            post("Expect: something\r\nContent-Length: 2\r\n", "{}"),
            417),
        Arguments.of(
            "an HTML page asked for", get("/v1/authorizations/%zz", "Accept: text/html\r\n"), 400));
  }

  @ParameterizedTest(name = "{0}: {2}")
  @MethodSource("refused")
  void whatJettyRefusesIsAProblemWithACode(String what, String request, int status) {
    List<RawHttp.Response> answers = raw.exchange(bytes(request), false);

    assertThat(answers).hasSize(1);
    RawHttp.Response r = answers.get(0);
    assertThat(r.status()).as(r.text()).isEqualTo(status);
    assertThat(r.header("Content-Type")).startsWith("application/problem+json");
    JsonNode problem = h.json(r.text());
    assertThat(problem.path("code").asText()).isEqualTo(code(status));
    assertThat(problem.path("type").asText()).isEqualTo("/errors/" + code(status));
    assertThat(problem.path("status").asInt()).isEqualTo(status);
    assertThat(problem.path("request_id").asText())
        .isEqualTo(r.header("X-Request-Id"))
        .isNotEmpty();
  }

  private static String code(int status) {
    return switch (status) {
      case 414 -> "uri_too_long";
      case 431 -> "headers_too_large";
      case 426, 505 -> "http_version_not_supported";
      default -> "invalid_request";
    };
  }

  @Test
  void aRefusedRequestKeepsAValidRequestId() {
    RawHttp.Response r =
        raw.exchange(
                bytes(get("/v1/authorizations/%ED%A0%80", "X-Request-Id: trace-17\r\n")), false)
            .get(0);

    assertThat(r.status()).isEqualTo(400);
    assertThat(r.header("X-Request-Id")).isEqualTo("trace-17");
    assertThat(h.json(r.text()).path("request_id").asText()).isEqualTo("trace-17");
  }

  @Test
  void aRefusedHeadRequestGetsTheProblemHeadersWithoutABody() {
    List<RawHttp.Response> answers =
        raw.exchange(bytes("HEAD * HTTP/1.1\r\nHost: x\r\n\r\n"), true);

    assertThat(answers).hasSize(1);
    assertThat(answers.get(0).status()).isEqualTo(400);
    assertThat(answers.get(0).header("Content-Type")).startsWith("application/problem+json");
    assertThat(answers.get(0).body()).isEmpty();
  }

  private static byte[] bytes(String request) {
    return request.getBytes(StandardCharsets.ISO_8859_1);
  }
}
