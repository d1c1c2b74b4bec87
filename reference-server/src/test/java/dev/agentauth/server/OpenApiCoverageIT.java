package dev.agentauth.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.server.ServerHarness.Resp;
import dev.agentauth.server.http.Api.Endpoint;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Answers every endpoint can give that the feature suites rarely provoke, asked of every row of the
 * route table so that the OpenAPI contract check ({@link OpenApiContract}) sees them on each store:
 * a U+0000 in a query parameter (400 naming it) and an API key over its request rate (429 with
 * Retry-After).
 */
class OpenApiCoverageIT {

  /** A concrete path for a row: every {param} filled with a well-formed id nobody has. */
  private static String path(Endpoint e) {
    return e.path().replaceAll("\\{[a-z_]+\\}", "unknown_id_1");
  }

  private static String credential(ServerHarness h, Endpoint e) {
    return switch (e.access()) {
      case "API_KEY" -> h.apiKey();
      case "ADMIN" -> ServerHarness.ADMIN_TOKEN;
      default -> null;
    };
  }

  @Test
  void everyEndpointRefusesANulInAQueryParameterWith400NamingIt() {
    try (ServerHarness h = ServerHarness.start()) {
      for (Endpoint e : h.server.endpoints()) {
        Resp r = h.send(e.method(), path(e) + "?probe=%00", null, credential(h, e), Map.of());
        assertThat(r.status()).as(e.toString()).isEqualTo(400);
        assertThat(r.code()).as(e.toString()).isEqualTo("invalid_request");
        assertThat(r.fields()).as(e.toString()).containsExactly("probe");
      }
    }
  }

  @Test
  void everyApiKeyEndpointAnswers429WithRetryAfterOnceTheKeysRateIsSpent() {
    try (ServerHarness h = ServerHarness.start(AgentAuthServer.builder().rateLimit(1))) {
      for (Endpoint e : h.server.endpoints()) {
        if (!e.access().equals("API_KEY")) {
          continue;
        }
        // One request a second: the second of two in a row is refused, unless a second boundary
        // fell between them; a few tries make that moot.
        Resp r = null;
        for (int i = 0; i < 6 && (r == null || r.status() != 429); i++) {
          r = h.send(e.method(), path(e), "{}", h.apiKey(), Map.of());
        }
        assertThat(r.status()).as(e.toString()).isEqualTo(429);
        assertThat(r.code()).as(e.toString()).isEqualTo("rate_limited");
        assertThat(r.header("Retry-After")).as(e.toString()).isEqualTo("1");
      }
    }
  }
}
