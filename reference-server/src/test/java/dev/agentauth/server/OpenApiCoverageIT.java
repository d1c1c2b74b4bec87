package dev.agentauth.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.server.ServerHarness.Resp;
import dev.agentauth.server.http.Api.Endpoint;
import dev.agentauth.server.service.ApiKeyOps;
import dev.agentauth.server.store.ApiKeyRow;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Answers every endpoint can give that the feature suites rarely provoke, asked of every row of the
 * route table so that the OpenAPI contract check ({@link OpenApiContract}) sees them on each store:
 * a U+0000 in a query parameter (400 naming it), an API key over its request rate (429 with
 * Retry-After), an Idempotency-Key reused for another request (409), a key whose role this server
 * does not know (403), and a server whose admin API is switched off (404).
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
      // The public cosignature intake counts per workspace at the same rate.
      Resp r = null;
      for (int i = 0; i < 6 && (r == null || r.status() != 429); i++) {
        r =
            h.send(
                "POST", "/v1/workspaces/ws_local/log/cosignatures", "not a note", null, Map.of());
      }
      assertThat(r.status()).as(r.raw()).isEqualTo(429);
      assertThat(r.code()).isEqualTo("rate_limited");
      assertThat(r.header("Retry-After")).isEqualTo("1");
    }
  }

  /**
   * A request each mutating endpoint accepts up to its transaction (the body passes validation).
   */
  private record Mutation(String method, String path, String body) {}

  private static final List<Mutation> MUTATIONS =
      List.of(
          new Mutation(
              "POST",
              "/v1/authorizations",
              "{\"user_id\":\"u1\",\"agent_id\":\"a1\",\"scopes\":[{\"name\":\"email.send\"}],"
                  + "\"expires_at\":\"2026-11-23T10:00:00Z\"}"),
          new Mutation("DELETE", "/v1/authorizations/unknown_id_1", null),
          new Mutation(
              "POST",
              "/v1/check",
              "{\"authorization_id\":\"unknown_id_1\",\"scopes\":[\"email.send\"]}"),
          new Mutation("POST", "/v1/confirmations/unknown_id_1", "{\"approved\":true}"),
          new Mutation(
              "POST",
              "/v1/escalations/unknown_id_1/resolve",
              "{\"resolution\":\"approved\",\"resolved_by\":\"approver_1\"}"),
          new Mutation(
              "POST",
              "/v1/agent-scope-bundles",
              "{\"id\":\"b1\",\"agent_id\":\"bot\",\"scopes\":[{\"name\":\"x\"}]}"),
          new Mutation(
              "PUT",
              "/v1/agent-scope-bundles/b2",
              "{\"agent_id\":\"bot\",\"scopes\":[{\"name\":\"y\"}]}"),
          new Mutation("DELETE", "/v1/agent-scope-bundles/unknown_id_1", null));

  @Test
  void everyMutationAnswers409WhenItsIdempotencyKeyAlreadyServedAnotherRequest() {
    try (ServerHarness h = ServerHarness.start()) {
      Map<String, String> key = Map.of("Idempotency-Key", "reused-key");
      Resp first = h.send("POST", "/v1/tombstones", "{\"resource\":\"doc/1\"}", h.apiKey(), key);
      assertThat(first.status()).as(first.raw()).isEqualTo(201);
      for (Mutation m : MUTATIONS) {
        Resp r = h.send(m.method(), m.path(), m.body(), h.apiKey(), key);
        assertThat(r.status()).as(m + ": " + r.raw()).isEqualTo(409);
        assertThat(r.code()).as(m.toString()).isEqualTo("idempotency_conflict");
      }
      // Nothing was done under the reused key: no authorization, no bundle.
      assertThat(h.get("/v1/authorizations").body().path("authorizations")).isEmpty();
      assertThat(h.get("/v1/agent-scope-bundles").body().path("bundles")).isEmpty();
    }
  }

  @Test
  void aKeyWhoseRoleThisServerDoesNotKnowIsRefused403OnEveryApiKeyEndpoint() {
    try (ServerHarness h = ServerHarness.start()) {
      // As a newer server version sharing the database might have written it.
      String secret = "sk_" + "f".repeat(43);
      h.server
          .store()
          .inTransaction(
              tx -> {
                tx.insertApiKey(
                    new ApiKeyRow(
                        ApiKeyOps.hash(secret),
                        "key_01jg" + "0".repeat(22),
                        "ws_local",
                        "auditor_v9",
                        "from a newer server",
                        null,
                        null,
                        h.clock.instant(),
                        null,
                        null,
                        null,
                        null));
                return null;
              });
      for (Endpoint e : h.server.endpoints()) {
        if (!e.access().equals("API_KEY")) {
          continue;
        }
        Resp r = h.send(e.method(), path(e), "{}", secret, Map.of());
        assertThat(r.status()).as(e + ": " + r.raw()).isEqualTo(403);
        assertThat(r.code()).as(e.toString()).isEqualTo("forbidden");
        assertThat(r.body().path("detail").asText()).as(e.toString()).contains("auditor_v9");
      }
    }
  }

  @Test
  void everyAdminEndpointIs404WhenTheServerHasNoAdminToken() {
    try (ServerHarness h = ServerHarness.startWithoutAdminApi()) {
      for (Endpoint e : h.server.endpoints()) {
        if (!e.access().equals("ADMIN")) {
          continue;
        }
        Resp r = h.send(e.method(), path(e), "{}", ServerHarness.ADMIN_TOKEN, Map.of());
        assertThat(r.status()).as(e + ": " + r.raw()).isEqualTo(404);
        assertThat(r.code()).as(e.toString()).isEqualTo("not_found");
      }
    }
  }
}
