package dev.agentauth.server.store.jdbc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** Group commit on the SQLite store: grouped jobs share the writer's batch transaction. */
class SqliteGroupedTransactionsIT extends GroupedTransactionsContract {
  @TempDir Path dir;

  @Override
  JdbcStore open() {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return JdbcStore.sqlite(dir.resolve("grouped.db"), MasterKey.random());
  }
}
