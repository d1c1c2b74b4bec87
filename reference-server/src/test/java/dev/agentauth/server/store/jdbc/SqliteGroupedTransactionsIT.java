package dev.agentauth.server.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.server.store.Store.GroupKey;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
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

  @Test
  void theWriterReadsAGroupsTargetsOnceAndThenFromItsCache() {
    GroupKey k = new GroupKey(WS, auth(1), "doc:1");
    long before = store.checkTargetsFromCache();
    assertThat(group(List.of(k, k), readTarget(k), readTarget(k)))
        .containsExactly(auth(1) + "/false/0/active", auth(1) + "/false/0/active");
    assertThat(store.checkTargetsFromCache()).isEqualTo(before);
    assertThat(group(List.of(k, k), readTarget(k), readTarget(k)))
        .containsExactly(auth(1) + "/false/0/active", auth(1) + "/false/0/active");
    assertThat(store.checkTargetsFromCache()).isEqualTo(before + 1);
    // A single check (a batch of one runs alone) uses the same cache.
    store.inTransaction(tx -> tx.authorizationForCheck(WS, auth(1), "doc:1"));
    assertThat(store.checkTargetsFromCache()).isEqualTo(before + 2);
  }
}
