package dev.agentauth.server;

import static dev.agentauth.server.CheckFixtures.authorizeScopes;
import static dev.agentauth.server.CheckFixtures.check;
import static dev.agentauth.server.CheckFixtures.receipts;
import static dev.agentauth.server.CheckFixtures.revoke;
import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.server.ServerHarness.Resp;
import dev.agentauth.server.service.ReceiptQuotas;
import dev.agentauth.server.service.ReceiptQuotas.Quota;
import dev.agentauth.server.store.PostgresTestDatabase;
import dev.agentauth.server.store.Store;
import dev.agentauth.server.store.jdbc.JdbcStore;
import dev.agentauth.server.store.jdbc.MasterKey;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Per-workspace receipt quotas: receipts and receipt bytes per UTC day by plan; past them, checks
 * and new authorizations answer 429 {@code quota_exceeded} with {@code Retry-After} until the next
 * UTC day, revocations still pass, other workspaces are untouched, the counts survive a restart and
 * show in {@code /metrics}.
 */
class ReceiptQuotaIT {
  /** Seconds from {@link ServerHarness#START} (10:00 UTC) to the next UTC midnight. */
  private static final long TO_MIDNIGHT = Duration.ofHours(14).toSeconds();

  @TempDir Path dir;
  private String postgresUrl;

  @AfterEach
  void dropSchema() {
    if (postgresUrl != null) {
      PostgresTestDatabase.dropSchema(postgresUrl);
    }
  }

  private static AgentAuthServer.Builder quotas(Quota free, Quota pro) {
    return AgentAuthServer.builder().receiptQuotas(new ReceiptQuotas.Limits(free, pro));
  }

  private static Resp check3(ServerHarness h, String id) {
    return check(h, id, "a.read", "b.read", "c.read").send();
  }

  @Test
  void pastItsReceiptsOfTheDayAWorkspaceGets429UntilTheNextUtcDay() {
    try (ServerHarness h = ServerHarness.start(quotas(Quota.UNLIMITED, new Quota(10, 0)))) {
      // 1 receipt for the authorization, 3 per check: 10 after three checks.
      String id = authorizeScopes(h, "a.read", "b.read", "c.read");
      for (int i = 0; i < 3; i++) {
        assertThat(check3(h, id).status()).isEqualTo(200);
      }

      Resp refused = check3(h, id);
      assertThat(refused.status()).as(refused.raw()).isEqualTo(429);
      assertThat(refused.code()).isEqualTo("quota_exceeded");
      assertThat(refused.header("Retry-After")).isEqualTo(Long.toString(TO_MIDNIGHT));
      assertThat(refused.body().path("detail").asText()).contains("10 receipts");
      Resp create =
          h.post(
              "/v1/authorizations",
              h.json(
                  "{\"user_id\":\"u\",\"agent_id\":\"a\",\"scopes\":[{\"name\":\"x\"}],"
                      + "\"expires_at\":\""
                      + CheckFixtures.EXPIRES
                      + "\"}"));
      assertThat(create.status()).as(create.raw()).isEqualTo(429);
      assertThat(create.code()).isEqualTo("quota_exceeded");

      // A second before midnight: still refused, for one more second.
      h.clock.advance(Duration.ofSeconds(TO_MIDNIGHT - 1));
      Resp last = check3(h, id);
      assertThat(last.status()).isEqualTo(429);
      assertThat(last.header("Retry-After")).isEqualTo("1");

      h.clock.advance(Duration.ofSeconds(1));
      assertThat(check3(h, id).status()).isEqualTo(200);
    }
  }

  @Test
  void revocationsAreNeverRefusedAndCount() {
    try (ServerHarness h = ServerHarness.start(quotas(Quota.UNLIMITED, new Quota(2, 0)))) {
      String a = authorizeScopes(h, "a.read");
      String b = authorizeScopes(h, "a.read");
      assertThat(check(h, a, "a.read").send().status()).isEqualTo(429);

      revoke(h, a);
      revoke(h, b);

      assertThat(receipts(h, "event=authorization.revoke")).hasSize(2);
    }
  }

  @Test
  void anotherWorkspaceKeepsCheckingWhileOneIsOverItsQuota() {
    try (ServerHarness h = ServerHarness.start(quotas(new Quota(4, 0), new Quota(4, 0)))) {
      String ownKey = h.apiKey();
      String bystanderKey = h.newWorkspace("ws_bystander", "pro");
      String id = authorizeScopes(h, "a.read", "b.read", "c.read");
      assertThat(check3(h, id).status()).isEqualTo(200);
      assertThat(check3(h, id).status()).isEqualTo(429);

      h.useApiKey(bystanderKey);
      String other = authorizeScopes(h, "a.read");
      for (int i = 0; i < 3; i++) {
        assertThat(check(h, other, "a.read").send().status()).isEqualTo(200);
      }

      h.useApiKey(ownKey);
      assertThat(check3(h, id).status()).isEqualTo(429);
    }
  }

  @Test
  void theByteQuotaCountsTheReceiptsPayloads() {
    String context = "{\"blob\":\"" + "x".repeat(4000) + "\"}";
    try (ServerHarness h = ServerHarness.start(quotas(Quota.UNLIMITED, new Quota(0, 9_000)))) {
      String id = authorizeScopes(h, "a.read");
      // Each receipt holds the 4,000-character context: after two checks the day holds
      // more than 9,000 bytes, after one less.
      assertThat(check(h, id, "a.read").context(context).send().status()).isEqualTo(200);
      assertThat(check(h, id, "a.read").context(context).send().status()).isEqualTo(200);
      Resp over = check(h, id, "a.read").context(context).send();
      assertThat(over.status()).as(over.raw()).isEqualTo(429);
      assertThat(over.body().path("detail").asText()).contains("9000 bytes of receipts");
      // Small checks are refused too: the day's bytes are used up.
      assertThat(check(h, id, "a.read").send().status()).isEqualTo(429);
    }
  }

  @Test
  void eachPlanHasItsOwnQuota() {
    try (ServerHarness h = ServerHarness.start(quotas(new Quota(3, 0), new Quota(100, 0)))) {
      String proKey = h.apiKey();
      String freeKey = h.newWorkspace("ws_free", "free");
      h.useApiKey(freeKey);
      String free = authorizeScopes(h, "a.read", "b.read", "c.read");
      assertThat(check3(h, free).status()).isEqualTo(200);
      assertThat(check3(h, free).status()).isEqualTo(429);

      h.useApiKey(proKey);
      String pro = authorizeScopes(h, "a.read", "b.read", "c.read");
      for (int i = 0; i < 5; i++) {
        assertThat(check3(h, pro).status()).isEqualTo(200);
      }
    }
  }

  @Test
  void metricsShowTodaysUsageAndTheRefusals() {
    try (ServerHarness h = ServerHarness.start(quotas(Quota.UNLIMITED, new Quota(4, 0)))) {
      String id = authorizeScopes(h, "a.read", "b.read", "c.read");
      assertThat(check3(h, id).status()).isEqualTo(200);
      assertThat(check3(h, id).status()).isEqualTo(429);
      assertThat(check3(h, id).status()).isEqualTo(429);

      String m = h.send("GET", "/metrics", null, null, Map.of()).raw();

      assertThat(m)
          .contains("agentauth_quota_receipts_today 4.0")
          .contains("agentauth_quota_refusals_total{quota=\"receipts\"} 2.0")
          .contains("agentauth_quota_refusals_total{quota=\"bytes\"} 0.0")
          .containsPattern("agentauth_quota_bytes_today [1-9][0-9.E]*\\n");
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

  @ParameterizedTest
  @ValueSource(strings = {"sqlite", "postgres"})
  void theDaysCountsSurviveARestart(String kind) {
    Supplier<Store> stores = stores(kind);
    Quota quota = new Quota(7, 0);
    String apiKey;
    String id;
    Instant stoppedAt;
    try (ServerHarness h =
        ServerHarness.start(quotas(Quota.UNLIMITED, quota).store(stores.get()))) {
      apiKey = h.apiKey();
      id = authorizeScopes(h, "a.read", "b.read", "c.read");
      assertThat(check3(h, id).status()).isEqualTo(200);
      assertThat(check3(h, id).status()).isEqualTo(200);
      stoppedAt = h.clock.instant();
    }

    try (ServerHarness h =
        ServerHarness.start(quotas(Quota.UNLIMITED, quota).store(stores.get()))) {
      h.useApiKey(apiKey);
      assertThat(h.clock.instant()).isEqualTo(stoppedAt);
      Resp r = check3(h, id);
      assertThat(r.status()).as(r.raw()).isEqualTo(429);
      assertThat(r.code()).isEqualTo("quota_exceeded");

      h.clock.advance(Duration.ofDays(1));
      assertThat(check3(h, id).status()).isEqualTo(200);
    }
  }
}
