package dev.agentauth.server.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.server.store.PostgresTestDatabase;
import dev.agentauth.server.store.Tx;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The plans PostgreSQL gives the statements that store signatures. The JDBC driver prepares them on
 * the server, and each connection keeps one generic plan, made from whatever the table's statistics
 * were at the time. Such a plan must never read the receipts to sign through {@code
 * receipts_pending}: that index keeps an entry for every receipt signed since the last vacuum, so
 * at load every batch would scan all of them. (Skipped, saying how to provide a server, when no
 * PostgreSQL answers.)
 */
class PostgresSignaturePlanIT {
  private String url;
  private Connection c;

  @BeforeEach
  void migrateAFreshSchema() throws SQLException {
    PostgresTestDatabase.assumeAvailable();
    url = PostgresTestDatabase.freshSchemaUrl();
    JdbcStore.postgres(url, MasterKey.random()).close();
    c = DriverManager.getConnection(url);
  }

  @AfterEach
  void dropTheSchema() throws SQLException {
    if (c != null) {
      c.close();
    }
    if (url != null) {
      PostgresTestDatabase.dropSchema(url);
    }
  }

  @Test
  void storingSignaturesLooksReceiptsUpByPrimaryKeyWhateverTheStatisticsSay() throws SQLException {
    // A new table, never analyzed, of unsigned receipts: the state in which a plain
    // "signed_json IS NULL" led the planner to receipts_pending.
    insertUnsignedReceipts(1, 1_000);
    assertNeitherStatementReadsThePendingIndex();

    // A larger, analyzed table: a plan made now must look receipts up by key, not scan the table.
    insertUnsignedReceipts(1_001, 100_000);
    try (Statement s = c.createStatement()) {
      s.execute("ANALYZE receipts");
    }
    assertNeitherStatementReadsThePendingIndex();
    assertThat(genericPlan(PostgresTx.MARK_SIGNED_ALL_POSTGRES, MARK_ALL_TYPES))
        .contains("receipts_pkey");
    assertThat(genericPlan(PostgresTx.MARK_SIGNED_POSTGRES, MARK_ONE_TYPES))
        .contains("receipts_pkey");
  }

  @Test
  void theBatchOfSignaturesIsPlannedWithItsArgumentsEveryTimeNeverFromACachedPlan()
      throws SQLException {
    // While the table is small, a cached generic plan would join by scanning all of it, and go on
    // doing so as it grows. So the statement must never become a server-side prepared statement,
    // however often one connection runs it (the driver's default turns the fifth run into one).
    insertUnsignedReceipts(1, 100);
    List<PreparedStatement> open = new ArrayList<>();
    JdbcTx tx =
        new PostgresTx(
            sql -> {
              PreparedStatement ps = c.prepareStatement(sql);
              open.add(ps);
              return ps;
            },
            MasterKey.random(),
            new ObjectMapper(),
            new HashMap<>());
    for (int run = 1; run <= 12; run++) {
      String id = "rcpt_" + String.format("%010d", run);
      String payload = "{\"receipt_id\":\"rcpt_" + run + "\"}";
      String signed =
          payload.substring(0, payload.length() - 1)
              + ",\"signature\":{\"alg\":\"Ed25519\",\"key_id\":\"k1\",\"value\":\"v\"}}";
      assertThat(tx.markSignedAll(List.of(new Tx.Signed("ws_1", id, signed))))
          .as("run %d stores its signature", run)
          .containsExactly(true);
      for (PreparedStatement ps : open) {
        ps.close();
      }
      open.clear();
    }
    try (Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT count(*) FROM pg_prepared_statements"
                    + " WHERE statement LIKE 'UPDATE receipts r SET signed_json =%unnest%'")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getInt(1)).as("server-side prepared signature statements").isZero();
    }
  }

  /** Parameter types of the signature statements (see {@link PostgresTx}). */
  private static final String[] MARK_ALL_TYPES = {
    "text[]", "text[]", "text[]", "text[]", "text[]", "integer[]"
  };

  private static final String[] MARK_ONE_TYPES = {
    "text", "text", "text", "text", "text", "text", "integer", "text"
  };

  private void assertNeitherStatementReadsThePendingIndex() throws SQLException {
    assertThat(genericPlan(PostgresTx.MARK_SIGNED_ALL_POSTGRES, MARK_ALL_TYPES))
        .doesNotContain("receipts_pending");
    assertThat(genericPlan(PostgresTx.MARK_SIGNED_POSTGRES, MARK_ONE_TYPES))
        .doesNotContain("receipts_pending");
  }

  private void insertUnsignedReceipts(int from, int to) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(
          "INSERT INTO receipts (workspace_id, receipt_id, authorization_id, issued_at,"
              + " payload_json) SELECT 'ws_1', 'rcpt_' || lpad(g::text, 10, '0'), 'auth_' || (g % 32),"
              + " g, '{\"receipt_id\":\"rcpt_' || g || '\"}' FROM generate_series("
              + from
              + ", "
              + to
              + ") g");
    }
  }

  /** The generic plan of {@code sql} (JDBC placeholders), as a connection would cache it. */
  private String genericPlan(String sql, String... types) throws SQLException {
    StringBuilder numbered = new StringBuilder();
    int n = 0;
    for (char ch : sql.toCharArray()) {
      if (ch == '?') {
        numbered.append('$').append(++n);
      } else {
        numbered.append(ch);
      }
    }
    assertThat(n).as("parameters of %s", sql).isEqualTo(types.length);
    StringBuilder plan = new StringBuilder();
    try (Statement s = c.createStatement()) {
      s.execute("SET plan_cache_mode = force_generic_plan");
      s.execute("PREPARE p (" + String.join(", ", types) + ") AS " + numbered);
      try (ResultSet rs =
          s.executeQuery(
              "EXPLAIN (COSTS OFF) EXECUTE p ("
                  + String.join(", ", Collections.nCopies(n, "NULL"))
                  + ")")) {
        while (rs.next()) {
          plan.append(rs.getString(1)).append('\n');
        }
      } finally {
        s.execute("DEALLOCATE p");
      }
    }
    return plan.toString();
  }
}
