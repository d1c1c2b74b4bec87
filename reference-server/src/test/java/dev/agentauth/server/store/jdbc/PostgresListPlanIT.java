package dev.agentauth.server.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.server.store.PostgresTestDatabase;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterEach;

/**
 * {@link ListPlanContract} on PostgreSQL, with statistics gathered after seeding: plans from {@code
 * EXPLAIN} with the list's own arguments. (Skipped, saying how to provide a server, when no
 * PostgreSQL answers.)
 */
class PostgresListPlanIT extends ListPlanContract {
  private String url;

  @Override
  void open() throws SQLException {
    PostgresTestDatabase.assumeAvailable();
    url = PostgresTestDatabase.freshSchemaUrl();
    store = JdbcStore.postgres(url, MasterKey.random());
    c = DriverManager.getConnection(url);
  }

  @AfterEach
  void dropTheSchema() throws SQLException {
    closeAll();
    c = null;
    store = null;
    if (url != null) {
      PostgresTestDatabase.dropSchema(url);
    }
  }

  @Override
  Dialect dialect() {
    return Dialect.POSTGRES;
  }

  @Override
  String series(int n, String select) {
    return select + " FROM generate_series(1, " + n + ") AS n";
  }

  @Override
  void analyze() throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("VACUUM ANALYZE receipts, authorizations, escalations");
    }
  }

  @Override
  String explain(String sql) {
    return "EXPLAIN (COSTS OFF) " + sql;
  }

  @Override
  void assertSeeks(String plan, String index, String column) {
    assertThat(plan).doesNotContain("Seq Scan").doesNotContain("Sort");
    assertThat(plan).contains("using " + index);
    assertThat(plan)
        .containsPattern("Index Cond: \\(\\(workspace_id = [^)]*\\) AND \\(" + column + " = ");
  }

  @Override
  void assertFindsTheWindowThroughAnIndex(String plan) {
    assertThat(plan).doesNotContain("Seq Scan").doesNotContain("Sort");
    assertThat(plan).containsPattern("Index (Only )?Scan using \\S+ on ");
  }

  @Override
  void assertReadsOnlyTheWindow(String plan, String key) {
    assertThat(plan).doesNotContain("Seq Scan");
    assertThat(plan).containsPattern("Index Cond: .*\\(" + key + " <= ");
  }
}
