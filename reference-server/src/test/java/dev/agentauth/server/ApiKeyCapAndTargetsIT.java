package dev.agentauth.server;

import static dev.agentauth.server.CheckFixtures.at;
import static dev.agentauth.server.CheckFixtures.authorize;
import static dev.agentauth.server.CheckFixtures.check;
import static dev.agentauth.server.CheckFixtures.verifiedReceipt;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentauth.server.ServerHarness.Resp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The cap on a workspace's live API keys (400 past it, revocation and expiry free room, concurrent
 * creations never pass it) and approver keys bound to {@code escalation_to} labels ({@code
 * targets}): validated, returned in the key's record, and 403 on other escalations.
 */
class ApiKeyCapAndTargetsIT {
  private static final String TARGETED =
      """
      {"scopes":[{"name":"pay.send"},{"name":"db.drop"},{"name":"ops.restart"}],
       "requires_escalation_for":["pay.send","db.drop","ops.restart"],
       "escalation_targets":{"pay.send":"finance","db.drop":"security"}}""";

  private ServerHarness h;

  @AfterEach
  void stop() {
    if (h != null) {
      h.close();
    }
  }

  private Resp as(String key, String method, String path, String body) {
    return h.send(method, path, body, key, Map.of());
  }

  private static void assertCapped(Resp r, int cap) {
    assertThat(r.status()).as(r.raw()).isEqualTo(400);
    assertThat(r.code()).isEqualTo("invalid_request");
    assertThat(r.body().path("detail").asText())
        .contains("limit of " + cap + " keys per workspace")
        .contains("revoke");
  }

  // ---- the cap

  @Test
  void creationPastTheCapIs400UntilAKeyIsRevokedOrExpires() {
    h = ServerHarness.start(AgentAuthServer.builder().maxApiKeysPerWorkspace(3));
    // The start-up key is the first of three.
    Instant expiry = ServerHarness.START.plus(Duration.ofHours(1));
    String expiring = "{\"role\":\"agent\",\"expires_at\":\"" + at(expiry) + "\"}";
    Resp first = h.post("/v1/api-keys", h.json(expiring));
    assertThat(first.status()).as(first.raw()).isEqualTo(201);
    Resp second = h.post("/v1/api-keys", h.json("{\"role\":\"agent\"}"));
    assertThat(second.status()).as(second.raw()).isEqualTo(201);

    assertCapped(h.post("/v1/api-keys", h.json("{\"role\":\"agent\"}")), 3);
    assertCapped(h.admin("/admin/v1/workspaces/ws_local/api-keys", null), 3);
    assertThat(h.get("/v1/api-keys").body().path("api_keys").size()).isEqualTo(3);

    // Revoking a key makes room for one.
    String secondId = second.body().path("key_id").asText();
    assertThat(h.delete("/v1/api-keys/" + secondId).status()).isEqualTo(200);
    Resp third = h.post("/v1/api-keys", h.json("{\"role\":\"auditor\"}"));
    assertThat(third.status()).as(third.raw()).isEqualTo(201);
    assertCapped(h.post("/v1/api-keys", h.json("{\"role\":\"agent\"}")), 3);

    // So does a key's expiry.
    h.clock.set(expiry);
    Resp fourth = h.admin("/admin/v1/workspaces/ws_local/api-keys", null);
    assertThat(fourth.status()).as(fourth.raw()).isEqualTo(201);
    assertCapped(h.post("/v1/api-keys", h.json("{\"role\":\"agent\"}")), 3);

    // The cap is per workspace.
    String other = h.newWorkspace("ws_other", "pro");
    Resp elsewhere = as(other, "POST", "/v1/api-keys", "{\"role\":\"agent\"}");
    assertThat(elsewhere.status()).as(elsewhere.raw()).isEqualTo(201);
  }

  @Test
  void concurrentCreationsNeverPassTheCap() throws Exception {
    int cap = 8;
    h = ServerHarness.start(AgentAuthServer.builder().maxApiKeysPerWorkspace(cap));
    int attempts = 40;
    ExecutorService pool = Executors.newFixedThreadPool(16);
    List<Future<Resp>> results = new ArrayList<>();
    try {
      for (int i = 0; i < attempts; i++) {
        Callable<Resp> create = () -> h.post("/v1/api-keys", h.json("{\"role\":\"agent\"}"));
        results.add(pool.submit(create));
      }
      int created = 0;
      for (Future<Resp> f : results) {
        Resp r = f.get();
        if (r.status() == 201) {
          created++;
        } else {
          assertCapped(r, cap);
        }
      }
      // The start-up key holds one place.
      assertThat(created).isEqualTo(cap - 1);
    } finally {
      pool.shutdownNow();
    }
    assertThat(h.get("/v1/api-keys?limit=100").body().path("api_keys").size()).isEqualTo(cap);
  }

  // ---- approver targets

  @Test
  void targetsAreValidatedAndOnlyForApprovers() {
    h = ServerHarness.start();
    assertInvalid(
        h.post("/v1/api-keys", h.json("{\"role\":\"agent\",\"targets\":[\"finance\"]}")),
        "targets");
    assertInvalid(h.post("/v1/api-keys", h.json("{\"targets\":[\"finance\"]}")), "targets");
    assertInvalid(h.post("/v1/api-keys", h.json(approver("[]"))), "targets");
    List<String> many = new ArrayList<>();
    for (int i = 0; i < 101; i++) {
      many.add("\"t" + i + "\"");
    }
    assertInvalid(
        h.post("/v1/api-keys", h.json(approver("[" + String.join(",", many) + "]"))), "targets");
    assertInvalid(h.post("/v1/api-keys", h.json(approver("[\"\"]"))), "targets[0]");
    assertInvalid(
        h.post("/v1/api-keys", h.json(approver("[\"ok\",\"" + "x".repeat(257) + "\"]"))),
        "targets[1]");
    assertInvalid(h.post("/v1/api-keys", h.json(approver("[\"a\\u0001b\"]"))), "targets[0]");
    assertInvalid(h.post("/v1/api-keys", h.json(approver("[\"a\",\"a\"]"))), "targets[1]");
    assertInvalid(h.post("/v1/api-keys", h.json(approver("[null]"))), "targets[0]");
    assertInvalid(h.post("/v1/api-keys", h.json(approver("\"finance\""))), "targets");

    // Valid targets are kept and shown; an unbound key has none.
    Resp bound = h.post("/v1/api-keys", h.json(approver("[\"finance\",\"security\"]")));
    assertThat(bound.status()).as(bound.raw()).isEqualTo(201);
    assertThat(bound.body().path("targets").toString()).isEqualTo("[\"finance\",\"security\"]");
    String secret = bound.body().path("api_key").asText();
    assertThat(as(secret, "GET", "/v1/api-keys/current", null).body().path("targets").toString())
        .isEqualTo("[\"finance\",\"security\"]");
    JsonNode listed = h.get("/v1/api-keys").body().path("api_keys");
    assertThat(listed.get(listed.size() - 1).path("targets").toString())
        .isEqualTo("[\"finance\",\"security\"]");
    Resp unbound =
        h.post("/v1/api-keys", h.json("{\"role\":\"approver\",\"approver_id\":\"appr_2\"}"));
    assertThat(unbound.body().has("targets")).as(unbound.raw()).isFalse();
  }

  private static String approver(String targets) {
    return "{\"role\":\"approver\",\"approver_id\":\"appr_1\",\"targets\":" + targets + "}";
  }

  private static void assertInvalid(Resp r, String field) {
    assertThat(r.status()).as(r.raw()).isEqualTo(400);
    assertThat(r.fields()).as(r.raw()).contains(field);
  }

  @Test
  void aTargetedApproverResolvesOnlyEscalationsToItsTargets() {
    h = ServerHarness.start();
    String approver =
        h.newKey(approver("[\"finance\"]").replace("appr_1", "appr_fin")).path("api_key").asText();
    String authorizationId = authorize(h, TARGETED);
    String pay = escalate(authorizationId, "pay.send");
    String drop = escalate(authorizationId, "db.drop");
    String restart = escalate(authorizationId, "ops.restart");

    Resp security = resolve(approver, drop, "{\"resolution\":\"approved\"}");
    assertThat(security.status()).as(security.raw()).isEqualTo(403);
    assertThat(security.code()).isEqualTo("forbidden");
    assertThat(security.body().path("detail").asText())
        .contains("\"finance\"")
        .contains("\"security\"");
    Resp untargeted = resolve(approver, restart, "{\"resolution\":\"rejected\"}");
    assertThat(untargeted.status()).as(untargeted.raw()).isEqualTo(403);
    assertThat(untargeted.body().path("detail").asText()).contains("has no escalation_to");
    assertThat(h.get("/v1/escalations/" + drop).body().path("status").asText())
        .isEqualTo("pending");
    assertThat(h.get("/v1/escalations/" + restart).body().path("status").asText())
        .isEqualTo("pending");

    Resp own = resolve(approver, pay, "{\"resolution\":\"approved\"}");
    assertThat(own.status()).as(own.raw()).isEqualTo(200);
    assertThat(own.body().path("resolved_by").asText()).isEqualTo("appr_fin");
    JsonNode receipt = verifiedReceipt(h, own.body().path("receipt").path("receipt_id").asText());
    assertThat(receipt.path("context").path("resolved_by").asText()).isEqualTo("appr_fin");

    // Unbound keys are unaffected: a full key and an approver without targets resolve the rest.
    Resp full =
        h.post(
            "/v1/escalations/" + drop + "/resolve",
            h.json("{\"resolution\":\"rejected\",\"resolved_by\":\"sec_1\"}"));
    assertThat(full.status()).as(full.raw()).isEqualTo(200);
    String anyApprover =
        h.newKey("{\"role\":\"approver\",\"approver_id\":\"appr_any\"}").path("api_key").asText();
    Resp any = resolve(anyApprover, restart, "{\"resolution\":\"approved\"}");
    assertThat(any.status()).as(any.raw()).isEqualTo(200);
    assertThat(any.body().path("resolved_by").asText()).isEqualTo("appr_any");
  }

  private String escalate(String authorizationId, String scope) {
    return check(h, authorizationId, scope).result().path("escalation_id").asText();
  }

  private Resp resolve(String key, String escalationId, String body) {
    return as(key, "POST", "/v1/escalations/" + escalationId + "/resolve", body);
  }
}
