package dev.agentauth.server.store.jdbc;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** {@link ReadLimitsContract} on SQLite: a progress handler stops a read that ran out of time. */
class SqliteReadLimitsIT extends ReadLimitsContract {
  @TempDir Path dir;

  @Override
  JdbcStore open(JdbcStore.ReadLimits limits) {
    return JdbcStore.sqlite(dir.resolve("limits.db"), MasterKey.random(), limits);
  }

  @Override
  String slowQuery() {
    return "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 5000000000)"
        + " SELECT count(*) FROM c";
  }
}
