package dev.agentauth.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.server.ServerHarness.Resp;
import dev.agentauth.server.http.Api.Endpoint;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Generated from the route table: every endpoint the server lists enforces the access its row
 * names, and every listed endpoint exists (a new endpoint cannot be added without deciding who may
 * call it, and an endpoint cannot answer outside the table).
 */
class RouteTableIT {
  private static ServerHarness h;

  @BeforeAll
  static void start() {
    h = ServerHarness.start();
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  /** A concrete path for a row: every {param} filled with a well-formed id nobody has. */
  private static String path(Endpoint e) {
    return e.path().replaceAll("\\{[a-z_]+\\}", "unknown_id_1");
  }

  @Test
  void theTableListsEveryEndpointOnceWithItsAccess() {
    List<Endpoint> endpoints = h.server.endpoints();
    assertThat(endpoints).hasSize(44);
    assertThat(endpoints.stream().map(e -> e.method() + " " + e.path()).distinct()).hasSize(44);
    assertThat(endpoints)
        .extracting(Endpoint::access)
        .containsOnly("PUBLIC", "METRICS", "API_KEY", "ADMIN");
    assertThat(endpoints)
        .filteredOn(e -> e.access().equals("PUBLIC"))
        .extracting(e -> e.method() + " " + e.path())
        .containsExactlyInAnyOrder(
            "GET /healthz",
            "GET /readyz",
            "GET /openapi.json",
            "GET /v1/workspaces/{id}/keys",
            "GET /v1/workspaces/{id}/log/checkpoint",
            "POST /v1/workspaces/{id}/log/cosignatures");
    assertThat(endpoints)
        .filteredOn(e -> e.access().equals("METRICS"))
        .extracting(e -> e.method() + " " + e.path())
        .containsExactly("GET /metrics");
    // Every API key row decides its roles; no other row has any.
    for (Endpoint e : endpoints) {
      if (e.access().equals("API_KEY")) {
        assertThat(e.roles()).as(e.toString()).isNotEmpty().contains("full");
        assertThat(e.path()).as(e.toString()).startsWith("/v1/");
      } else {
        assertThat(e.roles()).as(e.toString()).isEmpty();
      }
    }
    assertThat(endpoints)
        .filteredOn(e -> e.access().equals("ADMIN"))
        .allSatisfy(e -> assertThat(e.path()).startsWith("/admin/v1/"));
  }

  @Test
  void apiKeyEndpointsRefuseARequestWithoutAKeyAndChangeNothing() {
    long receipts = receiptCount();
    for (Endpoint e : h.server.endpoints()) {
      if (!e.access().equals("API_KEY")) {
        continue;
      }
      Resp r = h.send(e.method(), path(e), "{}", null, Map.of());
      assertThat(r.status()).as(e.toString()).isEqualTo(401);
      assertThat(r.code()).as(e.toString()).isEqualTo("unauthenticated");
      assertThat(r.header("Content-Type")).as(e.toString()).startsWith("application/problem+json");
      assertThat(r.header("WWW-Authenticate")).as(e.toString()).isEqualTo("Bearer");
      Resp wrong = h.send(e.method(), path(e), "{}", "sk_not_a_key", Map.of());
      assertThat(wrong.status()).as(e.toString()).isEqualTo(401);
    }
    assertThat(receiptCount()).isEqualTo(receipts);
  }

  @Test
  void adminEndpointsRefuseAnApiKeyAndAMissingToken() {
    for (Endpoint e : h.server.endpoints()) {
      if (!e.access().equals("ADMIN")) {
        continue;
      }
      Resp none = h.send(e.method(), path(e), "{}", null, Map.of());
      assertThat(none.status()).as(e.toString()).isEqualTo(401);
      assertThat(none.code()).as(e.toString()).isEqualTo("unauthenticated");
      Resp apiKey = h.send(e.method(), path(e), "{}", h.apiKey(), Map.of());
      assertThat(apiKey.status()).as(e.toString()).isEqualTo(401);
    }
  }

  @Test
  void everyListedEndpointExistsForTheRightCaller() {
    for (Endpoint e : h.server.endpoints()) {
      String credential =
          switch (e.access()) {
            case "API_KEY" -> h.apiKey();
            case "ADMIN" -> ServerHarness.ADMIN_TOKEN;
            default -> null;
          };
      Resp r = h.send(e.method(), path(e), "{}", credential, Map.of());
      // Any answer but "no such endpoint" or "method not allowed": unknown ids are 404 not_found
      // with another detail, bodies are 400, and so on.
      assertThat(r.status()).as(e.toString()).isNotIn(401, 405);
      if (r.status() == 404) {
        assertThat(r.body().path("detail").asText())
            .as(e.toString())
            .isNotEqualTo("no such endpoint");
      }
    }
  }

  @Test
  void aPathOutsideTheTableIsNotFoundAndAnUnlistedMethodIsNotAllowed() {
    Resp unknown = h.get("/v1/nothing-here");
    assertThat(unknown.status()).isEqualTo(404);
    assertThat(unknown.code()).isEqualTo("not_found");
    Resp method = h.send("PATCH", "/v1/check", "{}", h.apiKey(), Map.of());
    assertThat(method.status()).isEqualTo(405);
    assertThat(method.code()).isEqualTo("method_not_allowed");
  }

  private static long receiptCount() {
    long n = 0;
    String cursor = null;
    do {
      Resp page = h.get("/v1/receipts?limit=100" + (cursor == null ? "" : "&cursor=" + cursor));
      n += page.body().path("receipts").size();
      cursor =
          page.body().path("has_more").asBoolean()
              ? page.body().path("next_cursor").asText()
              : null;
    } while (cursor != null);
    return n;
  }
}
