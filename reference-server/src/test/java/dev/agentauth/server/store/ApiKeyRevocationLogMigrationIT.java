package dev.agentauth.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.server.AgentAuthServer;
import dev.agentauth.server.service.ApiKeyOps;
import dev.agentauth.server.store.jdbc.JdbcStore;
import dev.agentauth.server.store.jdbc.MasterKey;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.function.Supplier;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The revocation log and approver targets migration on both dialects: keys written before it keep
 * working with no targets, a key revoked before it stays refused although the log has no entry for
 * it, both count (or not) towards the cap as before, and a revocation made after it is logged.
 */
class ApiKeyRevocationLogMigrationIT {
  @TempDir Path dir;

  private final MasterKey key = MasterKey.random();

  private static final String LIVE = "sk_" + "d".repeat(43);
  private static final String REVOKED = "sk_" + "e".repeat(43);

  @Test
  void sqliteKeysBeforeTheLogKeepTheirState() throws Exception {
    Path file = dir.resolve("upgrade.db");
    keysBeforeTheLogKeepTheirState(
        "jdbc:sqlite:" + file, "sqlite", "5", () -> JdbcStore.sqlite(file, key));
  }

  @Test
  void postgresKeysBeforeTheLogKeepTheirState() throws Exception {
    PostgresTestDatabase.assumeAvailable();
    String url = PostgresTestDatabase.freshSchemaUrl();
    try {
      keysBeforeTheLogKeepTheirState(url, "postgresql", "4", () -> JdbcStore.postgres(url, key));
    } finally {
      PostgresTestDatabase.dropSchema(url);
    }
  }

  /**
   * {@code lastVersionBefore}: the schema version before API key roles' successors (the roles
   * migration); later migrations of other features, if any, run when the store opens.
   */
  private static void keysBeforeTheLogKeepTheirState(
      String url, String dialect, String lastVersionBefore, Supplier<Store> open) throws Exception {
    Flyway.configure()
        .dataSource(url, null, null)
        .locations("classpath:db/migration/" + dialect)
        .target(lastVersionBefore)
        .load()
        .migrate();
    long created = Instant.parse("2026-11-01T09:00:00Z").toEpochMilli();
    try (Connection c = DriverManager.getConnection(url)) {
      try (PreparedStatement ws =
          c.prepareStatement(
              "INSERT INTO workspaces (workspace_id, plan, created_at) VALUES ('ws_local', 'pro',"
                  + " ?)")) {
        ws.setLong(1, created);
        ws.executeUpdate();
      }
      int i = 0;
      for (String k : new String[] {LIVE, REVOKED}) {
        try (PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO api_keys (key_hash, key_id, workspace_id, role, approver_id,"
                    + " created_at, revoked_at) VALUES (?, ?, 'ws_local', 'approver', 'appr_1', ?,"
                    + " ?)")) {
          ps.setString(1, ApiKeyOps.hash(k));
          ps.setString(2, "key_00aaaaaaaaaaaaaaaaaaaaaaa" + i++);
          ps.setLong(3, created);
          if (k.equals(REVOKED)) {
            ps.setLong(4, created + 1000);
          } else {
            ps.setNull(4, java.sql.Types.BIGINT);
          }
          ps.executeUpdate();
        }
      }
    } catch (SQLException e) {
      throw new AssertionError(e);
    }

    try (Store s = open.get()) {
      ApiKeyRow kept = s.read(tx -> tx.apiKey(ApiKeyOps.hash(LIVE))).orElseThrow();
      assertThat(kept.targets()).isNull();
      assertThat(kept.revokedAt()).isNull();
      assertThat(s.read(tx -> tx.apiKey(ApiKeyOps.hash(REVOKED))).orElseThrow().revokedAt())
          .isNotNull();
      long last = s.read(tx -> tx.lastApiKeyRevocation());
      assertThat(last).isZero();
      int live = s.read(tx -> tx.countLiveApiKeys("ws_local", Instant.ofEpochMilli(created)));
      assertThat(live).isEqualTo(1);
    }

    try (AgentAuthServer server =
        AgentAuthServer.builder().store(open.get()).adminToken("admin-1").build().start()) {
      HttpClient http = HttpClient.newHttpClient();
      assertThat(current(http, server, LIVE).statusCode()).isEqualTo(200);
      assertThat(current(http, server, LIVE).body()).doesNotContain("targets");
      assertThat(current(http, server, REVOKED).statusCode()).isEqualTo(401);
      String liveId = server.store().read(tx -> tx.apiKey(ApiKeyOps.hash(LIVE))).get().keyId();
      HttpResponse<String> revoke =
          http.send(
              HttpRequest.newBuilder(
                      URI.create(
                          server.baseUrl() + "/admin/v1/workspaces/ws_local/api-keys/" + liveId))
                  .header("Authorization", "Bearer admin-1")
                  .DELETE()
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(revoke.statusCode()).as(revoke.body()).isEqualTo(200);
      List<ApiKeyRow.Revocation> logged =
          server.store().read(tx -> tx.apiKeyRevocationsAfter(0, 10));
      assertThat(logged)
          .extracting(ApiKeyRow.Revocation::keyHash)
          .containsExactly(ApiKeyOps.hash(LIVE));
      assertThat(current(http, server, LIVE).statusCode()).isEqualTo(401);
    }
  }

  private static HttpResponse<String> current(HttpClient http, AgentAuthServer server, String key)
      throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(server.baseUrl() + "/v1/api-keys/current"))
            .header("Authorization", "Bearer " + key)
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
