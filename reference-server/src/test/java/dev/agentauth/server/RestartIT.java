package dev.agentauth.server;

import static dev.agentauth.server.CheckFixtures.approve;
import static dev.agentauth.server.CheckFixtures.authorize;
import static dev.agentauth.server.CheckFixtures.check;
import static dev.agentauth.server.CheckFixtures.receiptIds;
import static dev.agentauth.server.CheckFixtures.resolveOk;
import static dev.agentauth.server.CheckFixtures.revoke;
import static dev.agentauth.server.CheckFixtures.tombstone;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentauth.server.ServerHarness.Resp;
import dev.agentauth.server.store.PostgresTestDatabase;
import dev.agentauth.server.store.Store;
import dev.agentauth.server.store.jdbc.JdbcStore;
import dev.agentauth.server.store.jdbc.MasterKey;
import dev.agentauth.verifier.ReceiptVerifier;
import dev.agentauth.verifier.VerificationResult;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Everything the API exposes survives closing the server and opening a new store on the same
 * database with the same master key: authorizations, bundles, tombstones, escalations, receipts
 * (byte for byte, still verifying), the published keys, API keys, idempotency records, daily
 * counters, budgets, open confirmation nonces and pending escalations.
 */
class RestartIT {
  private static final String CHECK = "/v1/check";

  @TempDir Path dir;
  private String postgresUrl;

  @AfterEach
  void dropSchema() {
    if (postgresUrl != null) {
      PostgresTestDatabase.dropSchema(postgresUrl);
    }
  }

  /** Opens a new store on the same database each time it is called. */
  private Supplier<Store> stores(String kind) {
    MasterKey key = MasterKey.random();
    if (kind.equals("sqlite")) {
      Path db = dir.resolve("agentauth.db");
      return () -> JdbcStore.sqlite(db, key);
    }
    PostgresTestDatabase.assumeAvailable();
    postgresUrl = PostgresTestDatabase.freshSchemaUrl();
    String url = postgresUrl;
    return () -> JdbcStore.postgres(url, key);
  }

  /** What was set up before the restart. */
  private record Before(
      String apiKey,
      String extraKey,
      String main,
      String budgeted,
      String revoked,
      String fromBundle,
      String openNonce,
      String pendingEscalation,
      String idempotentBody,
      String rotatedKeyId,
      Instant now,
      Map<String, String> snapshot) {}

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"sqlite", "postgres"})
  void everythingSurvivesARestart(String kind) {
    Supplier<Store> stores = stores(kind);
    Before before;
    try (ServerHarness h = ServerHarness.start(AgentAuthServer.builder().store(stores.get()))) {
      before = populate(h);
    }

    try (ServerHarness h = ServerHarness.start(AgentAuthServer.builder().store(stores.get()))) {
      assertThat(h.apiKey()).as("no key is generated for an existing workspace").isNull();
      h.clock.set(before.now());
      h.useApiKey(before.apiKey());

      // Everything reads back identically.
      Map<String, String> after = snapshot(h, before);
      assertThat(after).containsOnlyKeys(before.snapshot().keySet());
      for (Map.Entry<String, String> e : before.snapshot().entrySet()) {
        assertThat(after.get(e.getKey())).as(e.getKey()).isEqualTo(e.getValue());
      }

      // Every receipt verifies with the keys published after the restart, chains included.
      ReceiptVerifier verifier = h.verifier(h.workspaceId());
      for (String id : receiptIds(h, "")) {
        VerificationResult result = verifier.verify(h.signedReceipt(id).toString());
        assertThat(result.valid()).as("receipt %s: %s", id, result).isTrue();
      }
      for (String id :
          List.of(before.main(), before.budgeted(), before.revoked(), before.fromBundle())) {
        h.verifyChain(id);
      }

      // Both API keys still work.
      for (String key : List.of(before.apiKey(), before.extraKey())) {
        Resp r = h.send("GET", "/v1/authorizations", null, key, Map.of());
        assertThat(r.status()).as(r.raw()).isEqualTo(200);
      }

      // The idempotent request replays its first response.
      Resp replay = idempotentCheck(h, before.main());
      assertThat(replay.status()).isEqualTo(200);
      assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
      assertThat(replay.raw()).isEqualTo(before.idempotentBody());

      // Counters and budgets continue where they were.
      assertThat(check(h, before.main(), "email.send").outcome())
          .isEqualTo("deny/rate_limit_exceeded");
      JsonNode over = check(h, before.budgeted(), "llm.call").cost(800_000).result();
      assertThat(CheckFixtures.outcome(over)).isEqualTo("deny/budget_exceeded");
      assertThat(over.at("/budget/spent_micros").asLong()).isEqualTo(300_000);
      assertThat(check(h, before.budgeted(), "llm.call").cost(700_000).outcome())
          .isEqualTo("allow/authorization_granted_scope_active");
      assertThat(
              CheckFixtures.authorization(h, before.budgeted())
                  .path("budget_spent_micros")
                  .asLong())
          .isEqualTo(1_000_000);

      // Revocation, deleted bundles, tombstones and consumed approvals stay in force.
      assertThat(check(h, before.revoked(), "email.send").outcome())
          .isEqualTo("deny/authorization_revoked");
      assertThat(h.delete("/v1/authorizations/" + before.revoked()).status()).isEqualTo(409);
      Resp fromDeleted =
          h.post(
              "/v1/authorizations",
              h.json(
                  "{\"user_id\":\"u2\",\"bundle_id\":\"b_gone\",\"expires_at\":\""
                      + CheckFixtures.EXPIRES
                      + "\"}"));
      assertThat(fromDeleted.status()).as(fromDeleted.raw()).isEqualTo(400);
      assertThat(fromDeleted.code()).isEqualTo("bundle_not_found");
      assertThat(check(h, before.main(), "doc.read").resource("doc/secret").outcome())
          .isEqualTo("deny/resource_tombstoned");
      assertThat(check(h, before.main(), "pay.send").resource("inv/1").outcome())
          .isEqualTo("escalate/escalation_required");
      assertThat(check(h, before.main(), "pay.send").resource("inv/3").outcome())
          .isEqualTo("deny/escalation_rejected");

      // Open flows complete after the restart.
      approve(h, before.openNonce());
      assertThat(check(h, before.main(), "doc.delete").resource("doc/2").outcome())
          .isEqualTo("allow/authorization_granted_via_confirmation");
      resolveOk(h, before.pendingEscalation(), "approved");
      assertThat(check(h, before.main(), "pay.send").resource("inv/2").outcome())
          .isEqualTo("allow/authorization_granted_via_escalation");

      // New receipts are signed with the rotated key and the whole chain still verifies.
      h.clock.advance(Duration.ofSeconds(1));
      JsonNode fresh = check(h, before.main(), "doc.read").waitForSigning().result();
      assertThat(fresh.at("/receipt/signature/key_id").asText()).isEqualTo(before.rotatedKeyId());
      h.verifyChain(before.main());
      h.verifyChain(before.budgeted());
    }
  }

  /** Builds up state of every kind, waits until every receipt is signed, and snapshots it. */
  private Before populate(ServerHarness h) {
    String apiKey = h.apiKey();
    Resp extra = h.admin("/admin/v1/workspaces/ws_local/api-keys", null);
    assertThat(extra.status()).as(extra.raw()).isEqualTo(201);
    String extraKey = extra.body().path("api_key").asText();

    created(
        h,
        "/v1/agent-scope-bundles",
        "{\"id\":\"b_keep\",\"agent_id\":\"agent_b\",\"scopes\":[{\"name\":\"files.read\"},"
            + "{\"name\":\"files.write\",\"constraints\":{\"max_per_day\":5}}],"
            + "\"requires_confirm_for\":[\"files.write\"],\"default_expiry_days\":7,"
            + "\"description\":\"kept\"}");
    created(
        h,
        "/v1/agent-scope-bundles",
        "{\"id\":\"b_gone\",\"agent_id\":\"agent_b\",\"scopes\":[{\"name\":\"files.read\"}]}");
    assertThat(h.delete("/v1/agent-scope-bundles/b_gone").status()).isEqualTo(200);
    tombstone(h, "doc/secret");
    created(h, "/v1/tombstones", "{\"resource\":\"doc/held\",\"reason\":\"legal hold\"}");

    String main =
        authorize(
            h,
            """
            {"scopes":[{"name":"email.send","constraints":{"max_per_day":2}},
                       {"name":"doc.delete"},{"name":"pay.send"},
                       {"name":"doc.read","constraints":{"resource_pattern":"doc/*"}}],
             "requires_confirm_for":["doc.delete"],
             "requires_escalation_for":["pay.send"],
             "escalation_targets":{"pay.send":"manager"},
             "metadata":{"ticket":"T-1","nested":{"n":1}}}""");
    String budgeted =
        authorize(h, "{\"scopes\":[{\"name\":\"llm.call\"}],\"budget_limit_micros\":1000000}");
    String revoked = authorize(h, "{\"scopes\":[{\"name\":\"email.send\"}]}");
    revoke(h, revoked);
    String fromBundle = authorize(h, "{\"bundle_id\":\"b_keep\"}");

    // Checks of every decision.
    assertThat(check(h, main, "email.send").outcome())
        .isEqualTo("allow/authorization_granted_scope_active");
    assertThat(check(h, main, "email.send").outcome())
        .isEqualTo("allow/authorization_granted_scope_active");
    assertThat(check(h, main, "email.send").outcome()).isEqualTo("deny/rate_limit_exceeded");
    assertThat(check(h, main, "doc.read").resource("doc/secret").outcome())
        .isEqualTo("deny/resource_tombstoned");
    assertThat(check(h, revoked, "email.send").outcome()).isEqualTo("deny/authorization_revoked");
    assertThat(check(h, budgeted, "llm.call").cost(300_000).outcome())
        .isEqualTo("allow/authorization_granted_scope_active");
    assertThat(check(h, fromBundle, "files.read", "files.write").ok().path("results")).hasSize(2);

    JsonNode confirm = check(h, main, "doc.delete").resource("doc/1").result();
    assertThat(CheckFixtures.outcome(confirm))
        .isEqualTo("confirm/scope_requires_user_confirmation");
    approve(h, confirm.path("confirm_nonce").asText());
    assertThat(check(h, main, "doc.delete").resource("doc/1").outcome())
        .isEqualTo("allow/authorization_granted_via_confirmation");
    String openNonce =
        check(h, main, "doc.delete").resource("doc/2").result().path("confirm_nonce").asText();

    String approved =
        check(h, main, "pay.send").resource("inv/1").result().path("escalation_id").asText();
    resolveOk(h, approved, "approved");
    assertThat(check(h, main, "pay.send").resource("inv/1").outcome())
        .isEqualTo("allow/authorization_granted_via_escalation");
    String pendingEscalation =
        check(h, main, "pay.send").resource("inv/2").result().path("escalation_id").asText();
    String rejected =
        check(h, main, "pay.send").resource("inv/3").result().path("escalation_id").asText();
    resolveOk(h, rejected, "rejected");
    assertThat(check(h, main, "pay.send").resource("inv/3").outcome())
        .isEqualTo("deny/escalation_rejected");

    Resp idempotent = idempotentCheck(h, main);
    assertThat(idempotent.status()).as(idempotent.raw()).isEqualTo(200);
    assertThat(idempotent.header("Idempotent-Replayed")).isNull();

    // A key rotation, with receipts before and after it.
    h.clock.advance(Duration.ofSeconds(1));
    Resp rotated = h.admin("/admin/v1/workspaces/ws_local/signing-keys/rotate", null);
    assertThat(rotated.status()).as(rotated.raw()).isEqualTo(201);
    String rotatedKeyId = rotated.body().path("key_id").asText();
    h.clock.advance(Duration.ofSeconds(1));
    JsonNode afterRotation = check(h, main, "doc.read").resource("doc/7").waitForSigning().result();
    assertThat(afterRotation.at("/receipt/signature/key_id").asText()).isEqualTo(rotatedKeyId);

    for (String id : receiptIds(h, "")) {
      h.signedReceipt(id);
    }
    Before partial =
        new Before(
            apiKey,
            extraKey,
            main,
            budgeted,
            revoked,
            fromBundle,
            openNonce,
            pendingEscalation,
            idempotent.raw(),
            rotatedKeyId,
            h.clock.instant(),
            Map.of());
    Map<String, String> snapshot = snapshot(h, partial);
    assertThat(snapshot).hasSizeGreaterThan(30);
    return new Before(
        apiKey,
        extraKey,
        main,
        budgeted,
        revoked,
        fromBundle,
        openNonce,
        pendingEscalation,
        idempotent.raw(),
        rotatedKeyId,
        h.clock.instant(),
        snapshot);
  }

  private static Resp idempotentCheck(ServerHarness h, String main) {
    return h.send(
        "POST",
        CHECK,
        "{\"authorization_id\":\"" + main + "\",\"scopes\":[\"doc.read\"],\"resource\":\"doc/9\"}",
        h.apiKey(),
        Map.of("Idempotency-Key", "restart-idempotent-1"));
  }

  private static void created(ServerHarness h, String path, String json) {
    Resp r = h.post(path, h.json(json));
    assertThat(r.status()).as(r.raw()).isEqualTo(201);
  }

  /** Status and raw body of every read the API offers over the state {@link #populate} made. */
  private static Map<String, String> snapshot(ServerHarness h, Before b) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String id : List.of(b.main(), b.budgeted(), b.revoked(), b.fromBundle())) {
      read(h, out, "/v1/authorizations/" + id);
      read(h, out, "/v1/receipts?limit=100&authorization_id=" + id);
    }
    read(h, out, "/v1/authorizations?limit=100");
    read(h, out, "/v1/authorizations?limit=100&status=revoked");
    read(h, out, "/v1/agent-scope-bundles?limit=100");
    read(h, out, "/v1/agent-scope-bundles/b_keep");
    read(h, out, "/v1/agent-scope-bundles/b_gone");
    read(h, out, "/v1/tombstones?limit=100");
    Resp escalations = read(h, out, "/v1/escalations?limit=100");
    escalations
        .body()
        .path("escalations")
        .forEach(e -> read(h, out, "/v1/escalations/" + e.path("escalation_id").asText()));
    read(h, out, "/v1/receipts?limit=100");
    for (String id : receiptIds(h, "")) {
      read(h, out, "/v1/receipts/" + id);
    }
    Resp keys = h.send("GET", "/v1/workspaces/ws_local/keys", null, null, Map.of());
    out.put("keys", keys.status() + " " + keys.raw());
    return out;
  }

  private static Resp read(ServerHarness h, Map<String, String> out, String path) {
    Resp r = h.get(path);
    assertThat(r.status()).as("GET %s: %s", path, r.raw()).isIn(200, 404);
    // A problem body carries the request's own id; its status and code are what must persist.
    out.put(path, r.status() + " " + (r.status() == 200 ? r.raw() : r.code()));
    return r;
  }
}
