package dev.agentauth.server.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.SQLException;
import org.junit.jupiter.api.io.TempDir;

/** {@link ListPlanContract} on SQLite: plans from {@code EXPLAIN QUERY PLAN}. */
class SqliteListPlanIT extends ListPlanContract {
  @TempDir Path dir;

  @Override
  void open() throws SQLException {
    Path file = dir.resolve("plans.db");
    store = JdbcStore.sqlite(file, MasterKey.random());
    c = DriverManager.getConnection("jdbc:sqlite:" + file);
  }

  @Override
  Dialect dialect() {
    return Dialect.SQLITE;
  }

  @Override
  String series(int n, String select) {
    return "WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < "
        + n
        + ") "
        + select
        + " FROM g";
  }

  @Override
  String explain(String sql) {
    return "EXPLAIN QUERY PLAN " + sql;
  }

  @Override
  void assertSeeks(String plan, String index, String column) {
    assertOrderedSearch(plan);
    assertThat(plan)
        .containsPattern(
            "SEARCH \\w+ USING (COVERING )?INDEX "
                + index
                + " \\(workspace_id=\\? AND "
                + column
                + "=\\?");
  }

  @Override
  void assertFindsTheWindowThroughAnIndex(String plan) {
    assertOrderedSearch(plan);
    assertThat(plan).containsPattern("SEARCH \\w+ USING COVERING INDEX \\S+ \\(workspace_id=\\?");
  }

  @Override
  void assertReadsOnlyTheWindow(String plan, String key) {
    assertOrderedSearch(plan);
    assertThat(plan)
        .containsPattern(
            "SEARCH \\w+ USING (COVERING )?INDEX \\S+ \\(workspace_id=\\?[^)]* " + key + "<\\?\\)");
  }

  /** One search through an index, in its order: no table scan, no sort. */
  private static void assertOrderedSearch(String plan) {
    assertThat(plan).doesNotContain("TEMP B-TREE").doesNotContainPattern("(?m)^SCAN");
  }
}
