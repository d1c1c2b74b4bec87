package dev.agentauth.server;

import static dev.agentauth.server.CheckFixtures.at;
import static dev.agentauth.server.CheckFixtures.authorize;
import static dev.agentauth.server.CheckFixtures.check;
import static dev.agentauth.server.CheckFixtures.fieldNames;
import static dev.agentauth.server.CheckFixtures.verifiedReceipt;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentauth.server.ServerHarness.Resp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * API key lifecycle (decisions.md §15): creation through the admin API and {@code POST
 * /v1/api-keys}, its validation, listing with prefixes, the calling key's record, revocation (200,
 * 409, 404; immediate on this instance), expiry on the test clock, {@code last_used_at}, and
 * approver keys resolving under their own id.
 */
class ApiKeysIT {
  private static final String KEY_ID = "key_[0-9a-z]{26}";
  private static final String ESCALATED =
      "{\"scopes\":[{\"name\":\"pay.send\"}],\"requires_escalation_for\":[\"pay.send\"]}";

  private ServerHarness h;

  @BeforeEach
  void start() {
    h = ServerHarness.start();
  }

  @AfterEach
  void stop() {
    h.close();
  }

  private Resp as(String key, String method, String path, String body) {
    return h.send(method, path, body, key, Map.of());
  }

  private static void assertInvalid(Resp r, String field) {
    assertThat(r.status()).as(r.raw()).isEqualTo(400);
    assertThat(r.fields()).as(r.raw()).contains(field);
  }

  // ---- creation

  @Test
  void theAdminApiCreatesAKeyWithEveryFieldAndShowsTheSecretOnce() {
    Resp r =
        h.send(
            "POST",
            "/admin/v1/workspaces/ws_local/api-keys",
            "{\"role\":\"agent\",\"name\":\"mcp-prod\",\"expires_at\":\"2026-12-22T10:00:00Z\"}",
            ServerHarness.ADMIN_TOKEN,
            Map.of());
    assertThat(r.status()).as(r.raw()).isEqualTo(201);
    assertThat(r.header("Cache-Control")).isEqualTo("no-store");
    JsonNode k = r.body();
    assertThat(fieldNames(k))
        .containsExactlyInAnyOrder(
            "key_id",
            "api_key",
            "workspace_id",
            "role",
            "name",
            "approver_id",
            "prefix",
            "created_at",
            "expires_at",
            "last_used_at",
            "revoked_at");
    assertThat(k.path("key_id").asText()).matches(KEY_ID);
    String secret = k.path("api_key").asText();
    assertThat(secret).matches("sk_[A-Za-z0-9_-]{43}");
    assertThat(k.path("workspace_id").asText()).isEqualTo("ws_local");
    assertThat(k.path("role").asText()).isEqualTo("agent");
    assertThat(k.path("name").asText()).isEqualTo("mcp-prod");
    assertThat(k.path("approver_id").isNull()).isTrue();
    assertThat(k.path("prefix").asText()).isEqualTo(secret.substring(3, 11));
    assertThat(k.path("created_at").asText()).isEqualTo(at(ServerHarness.START));
    assertThat(k.path("expires_at").asText()).isEqualTo("2026-12-22T10:00:00.000Z");
    assertThat(k.path("last_used_at").isNull()).isTrue();
    assertThat(k.path("revoked_at").isNull()).isTrue();
    // The secret works, and is never shown again.
    assertThat(as(secret, "GET", "/v1/receipts", null).status()).isEqualTo(200);
    Resp list = h.get("/v1/api-keys");
    assertThat(list.raw()).doesNotContain(secret).doesNotContain("api_key\"");
  }

  @Test
  void aKeyWithoutABodyIsFullAndAFullKeyCreatesKeysInItsOwnWorkspace() {
    Resp admin = h.admin("/admin/v1/workspaces/ws_local/api-keys", null);
    assertThat(admin.status()).as(admin.raw()).isEqualTo(201);
    assertThat(admin.body().path("role").asText()).isEqualTo("full");
    assertThat(admin.body().path("name").isNull()).isTrue();

    String other = h.newWorkspace("ws_other", "pro");
    Resp created = as(other, "POST", "/v1/api-keys", "{\"role\":\"auditor\",\"name\":\"audit\"}");
    assertThat(created.status()).as(created.raw()).isEqualTo(201);
    assertThat(created.body().path("workspace_id").asText()).isEqualTo("ws_other");
    String auditor = created.body().path("api_key").asText();
    Resp current = as(auditor, "GET", "/v1/api-keys/current", null);
    assertThat(current.body().path("workspace_id").asText()).isEqualTo("ws_other");
    assertThat(current.body().path("role").asText()).isEqualTo("auditor");
  }

  @Test
  void bothApisCreateToolServerKeysWhichTakeNoApproverId() {
    Resp admin =
        h.admin("/admin/v1/workspaces/ws_local/api-keys", h.json("{\"role\":\"tool_server\"}"));
    assertThat(admin.status()).as(admin.raw()).isEqualTo(201);
    assertThat(admin.body().path("role").asText()).isEqualTo("tool_server");
    Resp own = h.post("/v1/api-keys", h.json("{\"role\":\"tool_server\",\"name\":\"mcp-prod\"}"));
    assertThat(own.status()).as(own.raw()).isEqualTo(201);
    Resp current = as(own.body().path("api_key").asText(), "GET", "/v1/api-keys/current", null);
    assertThat(current.body().path("role").asText()).isEqualTo("tool_server");
    assertThat(current.body().path("name").asText()).isEqualTo("mcp-prod");
    assertThat(h.get("/v1/api-keys").body().findValuesAsText("role"))
        .containsExactly("full", "tool_server", "tool_server");
    assertInvalid(
        h.post("/v1/api-keys", h.json("{\"role\":\"tool_server\",\"approver_id\":\"appr_1\"}")),
        "approver_id");
    Resp unknown = h.post("/v1/api-keys", h.json("{\"role\":\"toolserver\"}"));
    assertInvalid(unknown, "role");
    assertThat(unknown.body().path("errors").get(0).path("message").asText())
        .contains("tool_server");
  }

  @Test
  void creationRefusesBadFieldsNamingThem() {
    assertInvalid(h.post("/v1/api-keys", h.json("{\"role\":\"root\"}")), "role");
    assertInvalid(h.post("/v1/api-keys", h.json("{\"name\":\"\"}")), "name");
    assertInvalid(h.post("/v1/api-keys", h.json("{\"name\":\"" + "n".repeat(101) + "\"}")), "name");
    assertInvalid(h.post("/v1/api-keys", h.json("{\"name\":\"a\\u0007b\"}")), "name");
    assertInvalid(h.post("/v1/api-keys", h.json("{\"role\":\"approver\"}")), "approver_id");
    assertInvalid(
        h.post("/v1/api-keys", h.json("{\"role\":\"agent\",\"approver_id\":\"appr_1\"}")),
        "approver_id");
    assertInvalid(h.post("/v1/api-keys", h.json("{\"approver_id\":\"appr_1\"}")), "approver_id");
    assertInvalid(
        h.post("/v1/api-keys", h.json("{\"expires_at\":\"" + at(ServerHarness.START) + "\"}")),
        "expires_at");
    assertInvalid(h.post("/v1/api-keys", "{\"roles\":\"agent\"}"), "roles");
    assertInvalid(h.post("/v1/api-keys", "{\"role\":7}"), "role");
    Resp pii =
        h.post(
            "/v1/api-keys",
            h.json("{\"role\":\"approver\",\"approver_id\":\"alice@example.com\"}"));
    assertThat(pii.status()).as(pii.raw()).isEqualTo(400);
    assertThat(pii.code()).isEqualTo("pii_not_allowed");
    Resp idempotent =
        h.send("POST", "/v1/api-keys", "{}", h.apiKey(), Map.of("Idempotency-Key", "once"));
    assertInvalid(idempotent, "Idempotency-Key");
    Resp unknownWorkspace =
        h.send(
            "POST",
            "/admin/v1/workspaces/ws_none/api-keys",
            "{}",
            ServerHarness.ADMIN_TOKEN,
            Map.of());
    assertThat(unknownWorkspace.status()).isEqualTo(404);
    // Nothing was created by any of them: only the bootstrap key is listed.
    assertThat(h.get("/v1/api-keys").body().path("api_keys")).hasSize(1);
  }

  // ---- listing and the current key

  @Test
  void keysAreListedOldestFirstWithPrefixesPageByPage() {
    List<String> ids = new ArrayList<>();
    List<String> prefixes = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      JsonNode k = h.newKey("{\"role\":\"agent\",\"name\":\"k" + i + "\"}");
      ids.add(k.path("key_id").asText());
      prefixes.add(k.path("api_key").asText().substring(3, 11));
    }
    List<String> seen = new ArrayList<>();
    List<String> seenPrefixes = new ArrayList<>();
    String cursor = null;
    int pages = 0;
    do {
      Resp page = h.get("/v1/api-keys?limit=2" + (cursor == null ? "" : "&cursor=" + cursor));
      assertThat(page.status()).as(page.raw()).isEqualTo(200);
      for (JsonNode k : page.body().path("api_keys")) {
        assertThat(k.has("api_key")).isFalse();
        seen.add(k.path("key_id").asText());
        seenPrefixes.add(k.path("prefix").asText());
      }
      cursor =
          page.body().path("has_more").asBoolean()
              ? page.body().path("next_cursor").asText()
              : null;
      pages++;
    } while (cursor != null);
    assertThat(pages).isEqualTo(3);
    assertThat(seen).hasSize(5).endsWith(ids.toArray(String[]::new));
    assertThat(seenPrefixes).endsWith(prefixes.toArray(String[]::new));
    assertThat(seenPrefixes.get(0)).isEqualTo(h.apiKey().substring(3, 11));

    Resp admin =
        h.send(
            "GET",
            "/admin/v1/workspaces/ws_local/api-keys",
            null,
            ServerHarness.ADMIN_TOKEN,
            Map.of());
    assertThat(admin.status()).isEqualTo(200);
    assertThat(admin.body().path("api_keys")).hasSize(5);
    Resp unknown =
        h.send(
            "GET",
            "/admin/v1/workspaces/ws_none/api-keys",
            null,
            ServerHarness.ADMIN_TOKEN,
            Map.of());
    assertThat(unknown.status()).isEqualTo(404);
  }

  @Test
  void anyRoleReadsItsOwnRecordWithoutTheSecret() {
    JsonNode created =
        h.newKey("{\"role\":\"approver\",\"approver_id\":\"appr_9\",\"name\":\"oncall\"}");
    Resp r = as(created.path("api_key").asText(), "GET", "/v1/api-keys/current", null);
    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    assertThat(r.body().has("api_key")).isFalse();
    assertThat(r.body().path("key_id").asText()).isEqualTo(created.path("key_id").asText());
    assertThat(r.body().path("role").asText()).isEqualTo("approver");
    assertThat(r.body().path("approver_id").asText()).isEqualTo("appr_9");
    assertThat(r.body().path("name").asText()).isEqualTo("oncall");
    assertThat(r.body().path("workspace_id").asText()).isEqualTo("ws_local");
  }

  // ---- revocation and expiry

  @Test
  void revocationIs200Then409AndUnknownIs404AndTheKeyFailsAtOnce() {
    JsonNode agent = h.newKey("{\"role\":\"agent\"}");
    String secret = agent.path("api_key").asText();
    String id = agent.path("key_id").asText();
    assertThat(as(secret, "GET", "/v1/api-keys/current", null).status()).isEqualTo(200);

    Resp revoked = h.delete("/v1/api-keys/" + id);
    assertThat(revoked.status()).as(revoked.raw()).isEqualTo(200);
    assertThat(revoked.body().path("key_id").asText()).isEqualTo(id);
    assertThat(revoked.body().path("revoked_at").asText()).isEqualTo(at(ServerHarness.START));
    assertThat(revoked.body().has("api_key")).isFalse();
    // The very next request, and every one after, is refused.
    for (int i = 0; i < 20; i++) {
      Resp r = as(secret, "GET", "/v1/api-keys/current", null);
      assertThat(r.status()).isEqualTo(401);
      assertThat(r.code()).isEqualTo("unauthenticated");
      assertThat(r.body().path("detail").asText()).contains("revoked");
    }
    Resp again = h.delete("/v1/api-keys/" + id);
    assertThat(again.status()).as(again.raw()).isEqualTo(409);
    assertThat(again.code()).isEqualTo("already_revoked");
    assertThat(h.delete("/v1/api-keys/key_unknown").status()).isEqualTo(404);
    // The listing keeps it, revoked.
    assertThat(h.get("/v1/api-keys").body().path("api_keys").get(1).path("revoked_at").asText())
        .isEqualTo(at(ServerHarness.START));
  }

  @Test
  void theAdminApiRevokesAndAnotherWorkspacesKeyIsNotFound() {
    JsonNode agent = h.newKey("{\"role\":\"agent\"}");
    String id = agent.path("key_id").asText();
    String other = h.newWorkspace("ws_other", "pro");
    assertThat(as(other, "DELETE", "/v1/api-keys/" + id, null).status()).isEqualTo(404);
    assertThat(
            h.send(
                    "DELETE",
                    "/admin/v1/workspaces/ws_other/api-keys/" + id,
                    null,
                    ServerHarness.ADMIN_TOKEN,
                    Map.of())
                .status())
        .isEqualTo(404);
    Resp r =
        h.send(
            "DELETE",
            "/admin/v1/workspaces/ws_local/api-keys/" + id,
            null,
            ServerHarness.ADMIN_TOKEN,
            Map.of());
    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    assertThat(as(agent.path("api_key").asText(), "POST", "/v1/check", "{}").status())
        .isEqualTo(401);
    Resp again =
        h.send(
            "DELETE",
            "/admin/v1/workspaces/ws_local/api-keys/" + id,
            null,
            ServerHarness.ADMIN_TOKEN,
            Map.of());
    assertThat(again.code()).isEqualTo("already_revoked");
  }

  @Test
  void aFullKeyMayRevokeItself() {
    String id = h.get("/v1/api-keys/current").body().path("key_id").asText();
    Resp r = h.delete("/v1/api-keys/" + id);
    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    assertThat(h.get("/v1/receipts").status()).isEqualTo(401);
  }

  @Test
  void anotherWorkspacesIdsStay404WhateverTheRole() {
    String authorizationId = authorize(h, "{\"scopes\":[{\"name\":\"a.b\"}]}");
    h.newWorkspace("ws_other", "pro");
    for (String role : List.of("full", "app", "agent", "tool_server", "auditor")) {
      Resp k =
          h.send(
              "POST",
              "/admin/v1/workspaces/ws_other/api-keys",
              "{\"role\":\"" + role + "\"}",
              ServerHarness.ADMIN_TOKEN,
              Map.of());
      Resp r =
          as(
              k.body().path("api_key").asText(),
              "GET",
              "/v1/authorizations/" + authorizationId,
              null);
      assertThat(r.status()).as(role).isEqualTo(404);
    }
  }

  @Test
  void anExpiredKeyIs401OnTheTestClock() {
    Instant expiry = ServerHarness.START.plus(Duration.ofHours(1));
    String secret =
        h.newKey("{\"role\":\"agent\",\"expires_at\":\"" + at(expiry) + "\"}")
            .path("api_key")
            .asText();
    h.clock.set(expiry.minusMillis(1));
    assertThat(as(secret, "GET", "/v1/receipts", null).status()).isEqualTo(200);
    h.clock.set(expiry);
    Resp r = as(secret, "GET", "/v1/receipts", null);
    assertThat(r.status()).isEqualTo(401);
    assertThat(r.code()).isEqualTo("unauthenticated");
    assertThat(r.body().path("detail").asText()).contains("expired at " + at(expiry));
  }

  @Test
  void lastUsedAtIsRecordedAtMostOnceAMinute() {
    JsonNode k = h.newKey("{\"role\":\"auditor\"}");
    String secret = k.path("api_key").asText();
    String id = k.path("key_id").asText();
    assertThat(lastUsedAt(id)).isNull();
    as(secret, "GET", "/v1/receipts", null);
    assertThat(lastUsedAt(id)).isEqualTo(at(ServerHarness.START));
    h.clock.advance(Duration.ofSeconds(59));
    as(secret, "GET", "/v1/receipts", null);
    assertThat(lastUsedAt(id)).isEqualTo(at(ServerHarness.START));
    h.clock.advance(Duration.ofSeconds(1));
    as(secret, "GET", "/v1/receipts", null);
    assertThat(lastUsedAt(id)).isEqualTo(at(ServerHarness.START.plusSeconds(60)));
  }

  /** The key's {@code last_used_at} once every use noted so far is written. */
  private String lastUsedAt(String keyId) {
    h.server.refreshApiKeys();
    for (JsonNode k : h.get("/v1/api-keys").body().path("api_keys")) {
      if (k.path("key_id").asText().equals(keyId)) {
        return k.path("last_used_at").isNull() ? null : k.path("last_used_at").asText();
      }
    }
    throw new AssertionError("no key " + keyId);
  }

  // ---- approver keys

  @Test
  void anApproverResolvesUnderItsOwnIdAndTheReceiptRecordsIt() {
    String approver =
        h.newKey("{\"role\":\"approver\",\"approver_id\":\"appr_1\"}").path("api_key").asText();
    String authorizationId = authorize(h, ESCALATED);
    String first =
        check(h, authorizationId, "pay.send")
            .resource("inv/1")
            .result()
            .path("escalation_id")
            .asText();
    String second =
        check(h, authorizationId, "pay.send")
            .resource("inv/2")
            .result()
            .path("escalation_id")
            .asText();

    Resp someoneElse =
        as(
            approver,
            "POST",
            "/v1/escalations/" + first + "/resolve",
            "{\"resolution\":\"approved\",\"resolved_by\":\"mgr_2\"}");
    assertThat(someoneElse.status()).as(someoneElse.raw()).isEqualTo(403);
    assertThat(someoneElse.code()).isEqualTo("forbidden");
    assertThat(someoneElse.body().path("detail").asText()).contains("appr_1");
    assertThat(h.get("/v1/escalations/" + first).body().path("status").asText())
        .isEqualTo("pending");

    Resp omitted =
        as(
            approver,
            "POST",
            "/v1/escalations/" + first + "/resolve",
            "{\"resolution\":\"approved\"}");
    assertThat(omitted.status()).as(omitted.raw()).isEqualTo(200);
    assertThat(omitted.body().path("resolved_by").asText()).isEqualTo("appr_1");
    JsonNode receipt =
        verifiedReceipt(h, omitted.body().path("receipt").path("receipt_id").asText());
    assertThat(receipt.path("context").path("resolved_by").asText()).isEqualTo("appr_1");

    Resp same =
        as(
            approver,
            "POST",
            "/v1/escalations/" + second + "/resolve",
            "{\"resolution\":\"rejected\",\"resolved_by\":\"appr_1\"}");
    assertThat(same.status()).as(same.raw()).isEqualTo(200);
    assertThat(same.body().path("resolved_by").asText()).isEqualTo("appr_1");
  }

  @Test
  void aFullKeyMustStillSendResolvedBy() {
    String authorizationId = authorize(h, ESCALATED);
    String e = check(h, authorizationId, "pay.send").result().path("escalation_id").asText();
    assertInvalid(
        h.post("/v1/escalations/" + e + "/resolve", h.json("{\"resolution\":\"approved\"}")),
        "resolved_by");
  }

  // ---- metrics token

  @Test
  void aMetricsTokenGuardsMetrics() {
    try (ServerHarness guarded =
        ServerHarness.start(AgentAuthServer.builder().metricsToken("metrics-secret-1"))) {
      Resp none = guarded.send("GET", "/metrics", null, null, Map.of());
      assertThat(none.status()).isEqualTo(401);
      assertThat(none.code()).isEqualTo("unauthenticated");
      assertThat(none.raw()).doesNotContain("metrics-secret-1");
      assertThat(guarded.send("GET", "/metrics", null, "metrics-secret-2", Map.of()).status())
          .isEqualTo(401);
      assertThat(guarded.send("GET", "/metrics", null, guarded.apiKey(), Map.of()).status())
          .isEqualTo(401);
      Resp ok = guarded.send("GET", "/metrics", null, "metrics-secret-1", Map.of());
      assertThat(ok.status()).isEqualTo(200);
      assertThat(ok.raw()).contains("agentauth_");
    }
    assertThat(h.send("GET", "/metrics", null, null, Map.of()).status()).isEqualTo(200);
  }

  @Test
  void loopbackHostsAreRecognisedForTheMetricsWarning() {
    assertThat(AgentAuthServer.isLoopback("127.0.0.1")).isTrue();
    assertThat(AgentAuthServer.isLoopback("localhost")).isTrue();
    assertThat(AgentAuthServer.isLoopback("::1")).isTrue();
    assertThat(AgentAuthServer.isLoopback("[::1]")).isTrue();
    assertThat(AgentAuthServer.isLoopback("0.0.0.0")).isFalse();
    assertThat(AgentAuthServer.isLoopback("10.1.2.3")).isFalse();
  }
}
