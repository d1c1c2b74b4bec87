package dev.agentauth.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.model.AgentAuthJson;
import dev.agentauth.server.ServerHarness.Resp;
import dev.agentauth.verifier.ReceiptVerifier;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The admin API and the test clock (decisions §11). */
class AdminIT {
  private static final String TOKEN = ServerHarness.ADMIN_TOKEN;
  private static final ObjectMapper MAPPER = AgentAuthJson.newObjectMapper();

  private ServerHarness h;

  @BeforeEach
  void start() {
    h = ServerHarness.start();
  }

  @AfterEach
  void stop() {
    h.close();
  }

  private Resp admin(String path, String json) {
    return h.send("POST", path, json, TOKEN, Map.of());
  }

  /** A request to a server the harness does not wrap. */
  private static Resp call(AgentAuthServer server, String path, String json, String bearer) {
    try {
      HttpRequest.Builder b =
          HttpRequest.newBuilder(URI.create(server.baseUrl() + path))
              .timeout(Duration.ofSeconds(10))
              .POST(HttpRequest.BodyPublishers.ofString(json == null ? "" : json))
              .header("Content-Type", "application/json");
      if (bearer != null) {
        b.header("Authorization", "Bearer " + bearer);
      }
      HttpResponse<String> r =
          HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
      return new Resp(r.statusCode(), r.headers().map(), r.body(), MAPPER.readTree(r.body()));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static void assertProblem(Resp r, int status, String code) {
    assertThat(r.status()).as(r.raw()).isEqualTo(status);
    assertThat(r.header("Content-Type")).startsWith("application/problem+json");
    assertThat(r.code()).as(r.raw()).isEqualTo(code);
  }

  private String authorization() {
    Resp r =
        h.post(
            "/v1/authorizations",
            h.json(
                """
                {"user_id":"u1","agent_id":"a1","scopes":[{"name":"s"}],
                 "expires_at":"2026-11-23T10:00:00Z"}"""));
    assertThat(r.status()).as(r.raw()).isEqualTo(201);
    return r.body().path("authorization_id").asText();
  }

  // ---- access

  @Test
  void adminApiIsDisabledWithoutAToken() {
    try (AgentAuthServer plain = AgentAuthServer.builder().build().start()) {
      for (String path :
          List.of(
              "/admin/v1/workspaces",
              "/admin/v1/workspaces/ws_local/api-keys",
              "/admin/v1/workspaces/ws_local/signing-keys/rotate",
              "/admin/v1/clock")) {
        assertProblem(call(plain, path, "{}", "anything"), 404, "not_found");
        assertProblem(call(plain, path, "{}", null), 404, "not_found");
      }
    }
  }

  @Test
  void wrongOrMissingAdminTokenReturns401() {
    for (String bearer : List.of("wrong-token", TOKEN + "x", h.apiKey())) {
      Resp r =
          h.send("POST", "/admin/v1/workspaces", "{\"workspace_id\":\"ws_x\"}", bearer, Map.of());
      assertProblem(r, 401, "unauthenticated");
      assertThat(r.header("WWW-Authenticate")).isEqualTo("Bearer");
    }
    assertProblem(
        h.send("POST", "/admin/v1/clock", "{\"advance_seconds\":1}", null, Map.of()),
        401,
        "unauthenticated");
    assertProblem(
        h.send("POST", "/admin/v1/workspaces/ws_local/api-keys", null, "nope", Map.of()),
        401,
        "unauthenticated");
    assertThat(h.send("GET", "/v1/workspaces/ws_x/keys", null, null, Map.of()).status())
        .isEqualTo(404);
  }

  @Test
  void theAdminTokenIsNotAnApiKey() {
    Resp r = h.send("GET", "/v1/authorizations", null, TOKEN, Map.of());
    assertProblem(r, 401, "unauthenticated");
  }

  // ---- workspaces and API keys

  @Test
  void createWorkspaceReturns201() {
    Resp r = admin("/admin/v1/workspaces", "{\"workspace_id\":\"ws_acme\",\"plan\":\"pro\"}");

    assertThat(r.status()).as(r.raw()).isEqualTo(201);
    assertThat(r.body())
        .isEqualTo(
            h.json(
                """
                {"workspace_id":"ws_acme","plan":"pro","created_at":"2026-11-22T10:00:00.000Z"}"""));
    JsonNode keys = h.keys("ws_acme");
    assertThat(keys.path("keys")).hasSize(1);
    assertThat(keys.at("/keys/0/active_until").isNull()).isTrue();
  }

  @Test
  void planDefaultsToFree() {
    Resp r = admin("/admin/v1/workspaces", "{\"workspace_id\":\"ws_small\"}");
    assertThat(r.status()).as(r.raw()).isEqualTo(201);
    assertThat(r.body().path("plan").asText()).isEqualTo("free");
  }

  @Test
  void createExistingWorkspaceReturns409() {
    assertThat(admin("/admin/v1/workspaces", "{\"workspace_id\":\"ws_a\"}").status())
        .isEqualTo(201);
    Resp again = admin("/admin/v1/workspaces", "{\"workspace_id\":\"ws_a\",\"plan\":\"pro\"}");
    assertProblem(again, 409, "workspace_exists");
    assertProblem(
        admin("/admin/v1/workspaces", "{\"workspace_id\":\"ws_local\"}"), 409, "workspace_exists");
  }

  @Test
  void invalidWorkspaceRequestsReturn400() {
    for (String body :
        List.of(
            "{}",
            "{\"workspace_id\":\"\"}",
            "{\"workspace_id\":\"has space\"}",
            "{\"workspace_id\":\"slash/no\"}",
            "{\"workspace_id\":\"" + "w".repeat(65) + "\"}",
            "{\"workspace_id\":5}")) {
      Resp r = admin("/admin/v1/workspaces", body);
      assertProblem(r, 400, "invalid_request");
      assertThat(r.fields()).as(body).containsExactly("workspace_id");
    }
    for (String body :
        List.of(
            "{\"workspace_id\":\"ws_p\",\"plan\":\"enterprise\"}",
            "{\"workspace_id\":\"ws_p\",\"plan\":\"\"}",
            "{\"workspace_id\":\"ws_p\",\"plan\":1}")) {
      Resp r = admin("/admin/v1/workspaces", body);
      assertProblem(r, 400, "invalid_request");
      assertThat(r.fields()).as(body).containsExactly("plan");
    }
    Resp unknown = admin("/admin/v1/workspaces", "{\"workspace_id\":\"ws_p\",\"tier\":\"pro\"}");
    assertThat(unknown.fields()).containsExactly("tier");
    assertProblem(admin("/admin/v1/workspaces", ""), 400, "invalid_request");
    assertThat(
            admin("/admin/v1/workspaces", "{\"workspace_id\":\"" + "w".repeat(64) + "\"}").status())
        .isEqualTo(201);
  }

  @Test
  void issueApiKeyReturns201WithAUsableKey() {
    assertThat(admin("/admin/v1/workspaces", "{\"workspace_id\":\"ws_k\"}").status())
        .isEqualTo(201);

    Resp first = admin("/admin/v1/workspaces/ws_k/api-keys", null);
    Resp second = admin("/admin/v1/workspaces/ws_k/api-keys", null);

    assertThat(first.status()).as(first.raw()).isEqualTo(201);
    assertThat(first.body().path("workspace_id").asText()).isEqualTo("ws_k");
    String key = first.body().path("api_key").asText();
    assertThat(key).matches("sk_[A-Za-z0-9_-]{43}");
    assertThat(second.body().path("api_key").asText()).isNotEqualTo(key);

    Resp tombstone = h.send("POST", "/v1/tombstones", "{\"resource\":\"r\"}", key, Map.of());
    assertThat(tombstone.status()).as(tombstone.raw()).isEqualTo(201);
    Resp viaSecond =
        h.send("GET", "/v1/tombstones", null, second.body().path("api_key").asText(), Map.of());
    assertThat(viaSecond.body().path("tombstones")).hasSize(1);
    assertThat(h.get("/v1/tombstones").body().path("tombstones")).isEmpty();
  }

  @Test
  void issueApiKeyForAnUnknownWorkspaceReturns404() {
    assertProblem(admin("/admin/v1/workspaces/ws_nope/api-keys", null), 404, "not_found");
  }

  // ---- signing key rotation

  @Test
  void rotateRetiresTheOldKeyAndPublishesTheNewOne() {
    String before = authorization();
    assertThat(h.verifyChain(before)).isEqualTo(1);
    String oldKeyId = h.keys("ws_local").at("/keys/0/key_id").asText();
    h.clock.advance(Duration.ofMinutes(1));

    Resp r = admin("/admin/v1/workspaces/ws_local/signing-keys/rotate", null);

    assertThat(r.status()).as(r.raw()).isEqualTo(201);
    JsonNode fresh = r.body();
    assertThat(fresh.path("key_id").asText()).isNotEqualTo(oldKeyId);
    assertThat(fresh.path("alg").asText()).isEqualTo("Ed25519");
    assertThat(java.util.Base64.getUrlDecoder().decode(fresh.path("public_key").asText()))
        .hasSize(32);
    // The rotation takes effect one millisecond after the rotation instant.
    assertThat(fresh.path("active_from").asText()).isEqualTo("2026-11-22T10:01:00.001Z");
    assertThat(fresh.get("active_until").isNull()).isTrue();

    JsonNode keys = h.keys("ws_local").path("keys");
    assertThat(keys).hasSize(2);
    assertThat(keys.get(0).path("key_id").asText()).isEqualTo(oldKeyId);
    assertThat(keys.get(0).path("active_from").asText()).isEqualTo("2026-11-22T10:00:00.000Z");
    assertThat(keys.get(0).path("active_until").asText()).isEqualTo("2026-11-22T10:01:00.001Z");
    assertThat(keys.get(1)).isEqualTo(fresh);
  }

  @Test
  void receiptsFromBeforeAndAfterARotationBothVerify() {
    String id = authorization();
    JsonNode oldReceipt = h.signedReceipt(h.chainIds(id).get(0));
    h.clock.advance(Duration.ofSeconds(5));
    String newKeyId =
        admin("/admin/v1/workspaces/ws_local/signing-keys/rotate", null)
            .body()
            .path("key_id")
            .asText();
    h.clock.advance(Duration.ofSeconds(5));

    Resp check =
        h.post("/v1/check?wait=true", h.json("{\"scopes\":[\"s\"]}").put("authorization_id", id));
    JsonNode newReceipt = check.body().at("/results/s/receipt");

    assertThat(newReceipt.at("/signature/key_id").asText()).isEqualTo(newKeyId);
    assertThat(oldReceipt.at("/signature/key_id").asText()).isNotEqualTo(newKeyId);
    ReceiptVerifier verifier = h.verifier("ws_local");
    assertThat(verifier.verify(oldReceipt.toString()).valid()).isTrue();
    assertThat(verifier.verify(newReceipt.toString()).valid()).isTrue();
    assertThat(h.verifyChain(id)).isEqualTo(2);
  }

  @Test
  void receiptsSignedInTheMillisecondOfARotationStillVerify() {
    // The test clock stands still: the receipt is issued and signed at the rotation instant.
    String id = authorization();
    h.signedReceipt(h.chainIds(id).get(0));

    assertThat(admin("/admin/v1/workspaces/ws_local/signing-keys/rotate", null).status())
        .isEqualTo(201);

    assertThat(h.verifyChain(id)).isEqualTo(1);
    Resp check =
        h.post("/v1/check?wait=true", h.json("{\"scopes\":[\"s\"]}").put("authorization_id", id));
    assertThat(check.body().at("/results/s/receipt/signature").isObject()).isTrue();
    assertThat(h.verifyChain(id)).isEqualTo(2);

    // Rotating twice in one millisecond never publishes an empty key window.
    assertThat(admin("/admin/v1/workspaces/ws_local/signing-keys/rotate", null).status())
        .isEqualTo(201);
    JsonNode keys = h.keys("ws_local").path("keys");
    assertThat(keys).hasSize(3);
    for (int i = 0; i < 2; i++) {
      assertThat(Instant.parse(keys.get(i).path("active_until").asText()))
          .isAfter(Instant.parse(keys.get(i).path("active_from").asText()))
          .isEqualTo(Instant.parse(keys.get(i + 1).path("active_from").asText()));
    }
    h.clock.advance(Duration.ofMillis(5));
    Resp later =
        h.post("/v1/check?wait=true", h.json("{\"scopes\":[\"s\"]}").put("authorization_id", id));
    assertThat(later.body().at("/results/s/receipt/signature/key_id").asText())
        .isEqualTo(keys.get(2).path("key_id").asText());
    assertThat(h.verifyChain(id)).isEqualTo(3);
  }

  @Test
  void rotatingAnUnknownWorkspaceReturns404() {
    assertProblem(
        admin("/admin/v1/workspaces/ws_nope/signing-keys/rotate", null), 404, "not_found");
  }

  // ---- test clock

  @Test
  void clockAdvancesBySeconds() {
    Resp r = admin("/admin/v1/clock", "{\"advance_seconds\":90}");

    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    assertThat(r.body().path("now").asText()).isEqualTo("2026-11-22T10:01:30.000Z");
    assertThat(h.clock.instant()).isEqualTo(Instant.parse("2026-11-22T10:01:30Z"));
    assertThat(admin("/admin/v1/clock", "{\"advance_seconds\":0}").body().path("now").asText())
        .isEqualTo("2026-11-22T10:01:30.000Z");
  }

  @Test
  void clockCanBeSetForward() {
    Resp r = admin("/admin/v1/clock", "{\"set\":\"2026-12-01T08:00:00+02:00\"}");

    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    assertThat(r.body().path("now").asText()).isEqualTo("2026-12-01T06:00:00.000Z");
    assertThat(admin("/admin/v1/clock", "{\"set\":\"2026-12-01T06:00:00Z\"}").status())
        .isEqualTo(200);
  }

  @Test
  void clockNeverMovesBackward() {
    Resp back = admin("/admin/v1/clock", "{\"set\":\"2026-11-22T09:59:59.999Z\"}");
    assertProblem(back, 400, "invalid_request");
    assertThat(back.fields()).containsExactly("set");

    Resp negative = admin("/admin/v1/clock", "{\"advance_seconds\":-1}");
    assertProblem(negative, 400, "invalid_request");
    assertThat(negative.fields()).containsExactly("advance_seconds");

    assertThat(h.clock.instant()).isEqualTo(ServerHarness.START);
  }

  /**
   * Found by HttpFuzzIT (seed 1716): an advance that the clock can hold but that leaves year 9999
   * was a 500, and left the clock where no receipt can be written (RFC 3339 years have 4 digits).
   */
  @Test
  void clockNeverLeavesYear9999() {
    Resp far = admin("/admin/v1/clock", "{\"advance_seconds\":9007199254740992}");
    assertProblem(far, 400, "invalid_request");
    assertThat(far.fields()).containsExactly("advance_seconds");

    Resp farSet = admin("/admin/v1/clock", "{\"set\":\"+10000-01-01T00:00:00Z\"}");
    assertProblem(farSet, 400, "invalid_request");
    assertThat(farSet.fields()).containsExactly("set");
    assertThat(h.clock.instant()).isEqualTo(ServerHarness.START);

    Resp last = admin("/admin/v1/clock", "{\"set\":\"9999-12-31T23:59:59Z\"}");
    assertThat(last.status()).as(last.raw()).isEqualTo(200);
    Resp past = admin("/admin/v1/clock", "{\"advance_seconds\":1}");
    assertProblem(past, 400, "invalid_request");
    assertThat(past.fields()).containsExactly("advance_seconds");
  }

  @Test
  void clockNeedsExactlyOneOfAdvanceSecondsAndSet() {
    assertProblem(admin("/admin/v1/clock", "{}"), 400, "invalid_request");
    assertProblem(
        admin("/admin/v1/clock", "{\"advance_seconds\":1,\"set\":\"2026-12-01T00:00:00Z\"}"),
        400,
        "invalid_request");
    assertProblem(
        admin("/admin/v1/clock", "{\"set\":\"2026-12-01T00:00:00\"}"), 400, "invalid_request");
    assertProblem(admin("/admin/v1/clock", "{\"advance_seconds\":\"60\"}"), 400, "invalid_request");
    assertProblem(
        admin("/admin/v1/clock", "{\"advance_seconds\":9223372036854775807}"),
        400,
        "invalid_request");
    assertThat(h.clock.instant()).isEqualTo(ServerHarness.START);
  }

  @Test
  void movingTheClockExpiresAuthorizations() {
    Resp created =
        h.post(
            "/v1/authorizations",
            h.json(
                """
                {"user_id":"u1","agent_id":"a1","scopes":[{"name":"s"}],
                 "expires_at":"2026-11-22T10:01:00Z"}"""));
    String id = created.body().path("authorization_id").asText();

    assertThat(admin("/admin/v1/clock", "{\"advance_seconds\":60}").status()).isEqualTo(200);

    Resp check = h.post("/v1/check", h.json("{\"scopes\":[\"s\"]}").put("authorization_id", id));
    assertThat(check.body().at("/results/s/reason").asText()).isEqualTo("authorization_expired");
  }

  @Test
  void clockEndpointIs404WithoutATestClock() {
    Clock fixed = Clock.fixed(Instant.parse("2026-11-22T10:00:00Z"), ZoneOffset.UTC);
    try (AgentAuthServer server =
        AgentAuthServer.builder().clock(fixed).adminToken("t0k3n").build().start()) {
      Resp r = call(server, "/admin/v1/clock", "{\"advance_seconds\":60}", "t0k3n");
      assertProblem(r, 404, "not_found");
      assertThat(
              call(server, "/admin/v1/workspaces", "{\"workspace_id\":\"ws_z\"}", "t0k3n").status())
          .isEqualTo(201);
    }
  }
}
