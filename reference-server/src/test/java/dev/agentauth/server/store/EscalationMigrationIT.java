package dev.agentauth.server.store;

import static dev.agentauth.server.store.StoreConformance.WS_A;
import static dev.agentauth.server.store.StoreConformance.at;
import static dev.agentauth.server.store.StoreConformance.authId;
import static dev.agentauth.server.store.StoreConformance.escalation;
import static dev.agentauth.server.store.StoreConformance.minimalAuthorization;
import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.model.EscalationStatus;
import dev.agentauth.server.domain.AuthorizationRow;
import dev.agentauth.server.domain.EscalationRow;
import dev.agentauth.server.store.jdbc.JdbcStore;
import dev.agentauth.server.store.jdbc.MasterKey;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.function.Supplier;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Migration V2 on both dialects: a database written before revocation cancelled pending escalations
 * gets them cancelled on upgrade, and nothing else changes.
 */
class EscalationMigrationIT {
  @TempDir Path dir;

  private final MasterKey key = MasterKey.random();

  @Test
  void sqliteUpgradeEndsEscalationsLeftPendingByEarlierRevocations() throws SQLException {
    Path file = dir.resolve("upgrade.db");
    upgradeEndsEscalationsLeftPendingByEarlierRevocations(
        () -> JdbcStore.sqlite(file, key), "jdbc:sqlite:" + file, "sqlite");
  }

  @Test
  void postgresUpgradeEndsEscalationsLeftPendingByEarlierRevocations() throws SQLException {
    PostgresTestDatabase.assumeAvailable();
    String url = PostgresTestDatabase.freshSchemaUrl();
    try {
      upgradeEndsEscalationsLeftPendingByEarlierRevocations(
          () -> JdbcStore.postgres(url, key), url, "postgresql");
    } finally {
      PostgresTestDatabase.dropSchema(url);
    }
  }

  private static void upgradeEndsEscalationsLeftPendingByEarlierRevocations(
      Supplier<Store> open, String jdbcUrl, String dialect) throws SQLException {
    // What an older server left behind: an authorization revoked at +200 s whose escalations kept
    // their status, next to one that is still active.
    Instant revokedAt = Instant.parse("2026-11-22T10:03:20.123Z");
    AuthorizationRow revoked = minimalAuthorization(WS_A, authId(1)).withRevokedAt(revokedAt);
    AuthorizationRow active = minimalAuthorization(WS_A, authId(2));
    EscalationRow openAtRevocation =
        escalation(WS_A, "esc_1", authId(1), "s", "r1", "pending", at(0), at(600));
    EscalationRow lapsedBeforeRevocation =
        escalation(WS_A, "esc_2", authId(1), "s", "r2", "pending", at(0), at(100));
    EscalationRow approved =
        escalation(WS_A, "esc_3", authId(1), "s", "r3", "pending", at(0), at(600))
            .resolved(EscalationStatus.Known.APPROVED, "mgr", at(10), null, at(500));
    EscalationRow ofActive =
        escalation(WS_A, "esc_4", authId(2), "s", "r1", "pending", at(0), at(600));
    List<EscalationRow> all = List.of(openAtRevocation, lapsedBeforeRevocation, approved, ofActive);
    try (Store s = open.get()) {
      StoreConformance.write(
          s,
          tx -> {
            tx.insertAuthorization(revoked);
            tx.insertAuthorization(active);
            all.forEach(tx::insertEscalation);
          });
    }
    // Take V2 out of the schema history, as the previous version left it (V2 changed no schema),
    // and apply it again. Where a later migration (SQLite's V3) is already in place, V2 runs out of
    // order; its SQL is the same either way.
    try (Connection c = DriverManager.getConnection(jdbcUrl);
        Statement st = c.createStatement()) {
      assertThat(st.executeUpdate("DELETE FROM flyway_schema_history WHERE version = '2'"))
          .isEqualTo(1);
    }
    assertThat(
            Flyway.configure()
                .dataSource(jdbcUrl, null, null)
                .locations("classpath:db/migration/" + dialect)
                .outOfOrder(true)
                .load()
                .migrate()
                .migrationsExecuted)
        .isEqualTo(1);

    try (Store s = open.get()) {
      s.inTransaction(
          (Tx tx) -> {
            assertThat(tx.escalation(WS_A, "esc_1"))
                .contains(openAtRevocation.expiringAt(revokedAt));
            for (EscalationRow unchanged : List.of(lapsedBeforeRevocation, approved, ofActive)) {
              assertThat(tx.escalation(WS_A, unchanged.escalationId())).contains(unchanged);
            }
            return null;
          });
    }
  }
}
