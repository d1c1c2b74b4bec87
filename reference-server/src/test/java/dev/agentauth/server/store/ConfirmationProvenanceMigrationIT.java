package dev.agentauth.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.server.domain.GrantRow;
import dev.agentauth.server.store.jdbc.JdbcStore;
import dev.agentauth.server.store.jdbc.MasterKey;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Instant;
import java.util.function.Supplier;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The confirmation provenance migration (PostgreSQL V10, SQLite V11) on both dialects: a
 * confirmation window opened before it stays usable and reads with no approver (its allows'
 * receipts then carry no {@code agentauth_confirmation}); one opened after it keeps who approved it
 * and through what.
 */
class ConfirmationProvenanceMigrationIT {
  @TempDir Path dir;

  private final MasterKey key = MasterKey.random();

  private static final String WS = "ws_a";
  private static final String AUTH = "auth_01jdq4m5v6w7x8y9z0a1b2c3d4";
  private static final Instant T0 = Instant.parse("2026-11-22T10:00:00.123Z");

  @Test
  void sqliteWindowsOpenedBeforeReadWithoutApproverAndNewOnesKeepIt() throws Exception {
    Path file = dir.resolve("upgrade.db");
    upgrades("jdbc:sqlite:" + file, "sqlite", "10", () -> JdbcStore.sqlite(file, key));
  }

  @Test
  void postgresWindowsOpenedBeforeReadWithoutApproverAndNewOnesKeepIt() throws Exception {
    PostgresTestDatabase.assumeAvailable();
    String url = PostgresTestDatabase.freshSchemaUrl();
    try {
      upgrades(url, "postgresql", "9", () -> JdbcStore.postgres(url, key));
    } finally {
      PostgresTestDatabase.dropSchema(url);
    }
  }

  private void upgrades(String url, String dialect, String lastVersionBefore, Supplier<Store> open)
      throws Exception {
    Flyway.configure()
        .dataSource(url, null, null)
        .locations("classpath:db/migration/" + dialect)
        .target(lastVersionBefore)
        .load()
        .migrate();
    try (Connection c = DriverManager.getConnection(url);
        PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO grants (workspace_id, grant_id, authorization_id, scope, resource,"
                    + " resource_key, nonce, created_at, expires_at)"
                    + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
      ps.setString(1, WS);
      ps.setString(2, "cfa_old");
      ps.setString(3, AUTH);
      ps.setString(4, "email.send");
      ps.setString(5, "doc:1");
      ps.setString(6, "=doc:1");
      ps.setString(7, "cn_old");
      ps.setLong(8, T0.toEpochMilli());
      ps.setLong(9, T0.plusSeconds(60).toEpochMilli());
      ps.executeUpdate();
    }
    GrantRow old =
        new GrantRow(
            WS, "cfa_old", AUTH, "email.send", "doc:1", "cn_old", T0, T0.plusSeconds(60), null);
    GrantRow fresh =
        new GrantRow(
            WS,
            "cfa_new",
            AUTH,
            "email.send",
            "doc:2",
            "cn_new",
            T0,
            T0.plusSeconds(60),
            new GrantRow.ApprovedBy("key_01jdq4", "tool_server", "mcp_elicitation"));
    try (Store s = open.get()) {
      assertThat(s.read((Tx tx) -> tx.activeGrant(WS, AUTH, "email.send", "doc:1", T0)))
          .contains(old);
      s.inTransaction(
          (Tx tx) -> {
            tx.insertGrant(fresh);
            return null;
          });
      assertThat(s.read((Tx tx) -> tx.activeGrant(WS, AUTH, "email.send", "doc:2", T0)))
          .contains(fresh);
    }
  }
}
