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
 * The API key roles migration on both dialects: keys written before roles become {@code full} keys
 * with distinct opaque ids that sort before every later id, no prefix until next used, and nothing
 * else set; and a server on the upgraded database accepts such a key for everything.
 */
class ApiKeyMigrationIT {
  @TempDir Path dir;

  private final MasterKey key = MasterKey.random();

  private static final String OLD_KEY_1 = "sk_" + "b".repeat(43);
  private static final String OLD_KEY_2 = "sk_" + "c".repeat(43);

  @Test
  void sqliteKeysBeforeRolesBecomeFullKeys() throws Exception {
    Path file = dir.resolve("upgrade.db");
    String url = "jdbc:sqlite:" + file;
    keysBeforeRolesBecomeFullKeys(url, "sqlite", "4", () -> JdbcStore.sqlite(file, key));
  }

  @Test
  void postgresKeysBeforeRolesBecomeFullKeys() throws Exception {
    PostgresTestDatabase.assumeAvailable();
    String url = PostgresTestDatabase.freshSchemaUrl();
    try {
      keysBeforeRolesBecomeFullKeys(url, "postgresql", "3", () -> JdbcStore.postgres(url, key));
    } finally {
      PostgresTestDatabase.dropSchema(url);
    }
  }

  private static void keysBeforeRolesBecomeFullKeys(
      String url, String dialect, String lastVersionBeforeRoles, Supplier<Store> open)
      throws Exception {
    // The schema as the previous version left it, with two keys in it.
    Flyway.configure()
        .dataSource(url, null, null)
        .locations("classpath:db/migration/" + dialect)
        .target(lastVersionBeforeRoles)
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
      for (String k : List.of(OLD_KEY_1, OLD_KEY_2)) {
        try (PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO api_keys (key_hash, workspace_id, created_at) VALUES (?, ?, ?)")) {
          ps.setString(1, ApiKeyOps.hash(k));
          ps.setString(2, "ws_local");
          ps.setLong(3, created);
          ps.executeUpdate();
        }
      }
    } catch (SQLException e) {
      throw new AssertionError(e);
    }

    // Opening the store migrates it.
    String firstId;
    try (Store s = open.get()) {
      ApiKeyRow k1 = s.read(tx -> tx.apiKey(ApiKeyOps.hash(OLD_KEY_1))).orElseThrow();
      ApiKeyRow k2 = s.read(tx -> tx.apiKey(ApiKeyOps.hash(OLD_KEY_2))).orElseThrow();
      for (ApiKeyRow k : List.of(k1, k2)) {
        assertThat(k.role()).isEqualTo("full");
        assertThat(k.keyId()).matches("key_00[0-9a-f]{24}");
        assertThat(k.workspaceId()).isEqualTo("ws_local");
        assertThat(k.createdAt()).isEqualTo(Instant.ofEpochMilli(created));
        assertThat(k.name()).isNull();
        assertThat(k.approverId()).isNull();
        assertThat(k.prefix()).isNull();
        assertThat(k.expiresAt()).isNull();
        assertThat(k.lastUsedAt()).isNull();
        assertThat(k.revokedAt()).isNull();
      }
      assertThat(k1.keyId()).isNotEqualTo(k2.keyId());
      firstId =
          s.read(tx -> tx.listApiKeys("ws_local", PageRequest.first(10))).items().get(0).keyId();
    }

    // A server on the upgraded database: the old key may do everything, and a key made now is
    // listed after the migrated ones.
    try (AgentAuthServer server =
        AgentAuthServer.builder().store(open.get()).adminToken("admin-1").build().start()) {
      HttpClient http = HttpClient.newHttpClient();
      HttpResponse<String> current =
          http.send(
              HttpRequest.newBuilder(URI.create(server.baseUrl() + "/v1/api-keys/current"))
                  .header("Authorization", "Bearer " + OLD_KEY_1)
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(current.statusCode()).as(current.body()).isEqualTo(200);
      assertThat(current.body()).contains("\"role\":\"full\"");
      HttpResponse<String> made =
          http.send(
              HttpRequest.newBuilder(URI.create(server.baseUrl() + "/v1/api-keys"))
                  .header("Authorization", "Bearer " + OLD_KEY_1)
                  .POST(HttpRequest.BodyPublishers.ofString("{\"role\":\"agent\"}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(made.statusCode()).as(made.body()).isEqualTo(201);
      List<ApiKeyRow> listed =
          server.store().read(tx -> tx.listApiKeys("ws_local", PageRequest.first(10))).items();
      assertThat(listed).hasSize(3);
      assertThat(listed.get(0).keyId()).isEqualTo(firstId);
      assertThat(listed.get(2).role()).isEqualTo("agent");
    }
  }
}
