package dev.agentauth.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.server.store.UsageTx.ReceiptUsage;
import dev.agentauth.server.store.jdbc.JdbcStore;
import dev.agentauth.server.store.jdbc.MasterKey;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link UsageTx} on every store: usage adds up per workspace and UTC day, is read back by day,
 * rolls back with its transaction and loses no addition under concurrency.
 */
class ReceiptUsageStoreIT {
  private static final LocalDate DAY = LocalDate.parse("2026-11-22");

  @TempDir Path dir;
  private Store store;
  private String postgresUrl;

  @AfterEach
  void close() {
    if (store != null) {
      store.close();
    }
    if (postgresUrl != null) {
      PostgresTestDatabase.dropSchema(postgresUrl);
    }
  }

  private Store open(String kind) {
    switch (kind) {
      case "memory":
        store = new MemoryStore();
        break;
      case "sqlite":
        store = JdbcStore.sqlite(dir.resolve("t.db"), MasterKey.random());
        break;
      default:
        PostgresTestDatabase.assumeAvailable();
        postgresUrl = PostgresTestDatabase.freshSchemaUrl();
        store = JdbcStore.postgres(postgresUrl, MasterKey.random());
    }
    return store;
  }

  private static void add(Store s, String ws, LocalDate day, long receipts, long bytes) {
    s.inTransaction(
        tx -> {
          tx.addReceiptUsage(ws, day, receipts, bytes);
          return null;
        });
  }

  private static Map<String, ReceiptUsage> usages(Store s, LocalDate day) {
    Store.Work<Map<String, ReceiptUsage>> work = tx -> tx.receiptUsages(day);
    return s.read(work);
  }

  @ParameterizedTest
  @ValueSource(strings = {"memory", "sqlite", "postgres"})
  void usageAddsUpPerWorkspaceAndDay(String kind) {
    Store s = open(kind);
    assertThat(usages(s, DAY)).isEmpty();

    add(s, "ws_a", DAY, 3, 300);
    add(s, "ws_a", DAY, 2, 50);
    add(s, "ws_b", DAY, 1, 10);
    add(s, "ws_a", DAY.plusDays(1), 7, 70);

    assertThat(usages(s, DAY))
        .isEqualTo(Map.of("ws_a", new ReceiptUsage(5, 350), "ws_b", new ReceiptUsage(1, 10)));
    assertThat(usages(s, DAY.plusDays(1))).isEqualTo(Map.of("ws_a", new ReceiptUsage(7, 70)));
    assertThat(usages(s, DAY.minusDays(1))).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"memory", "sqlite", "postgres"})
  void anAdditionRollsBackWithItsTransaction(String kind) {
    Store s = open(kind);
    add(s, "ws_a", DAY, 1, 1);
    RuntimeException failure = new IllegalStateException("boom");

    assertThatThrownBy(
            () ->
                s.inTransaction(
                    tx -> {
                      tx.addReceiptUsage("ws_a", DAY, 5, 5);
                      tx.addReceiptUsage("ws_b", DAY, 5, 5);
                      throw failure;
                    }))
        .isSameAs(failure);

    assertThat(usages(s, DAY)).isEqualTo(Map.of("ws_a", new ReceiptUsage(1, 1)));
  }

  @ParameterizedTest
  @ValueSource(strings = {"memory", "sqlite", "postgres"})
  void concurrentAdditionsAreAllCounted(String kind) throws Exception {
    Store s = open(kind);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        done.add(pool.submit(() -> add(s, "ws_a", DAY, 1, 100)));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }

    assertThat(usages(s, DAY)).isEqualTo(Map.of("ws_a", new ReceiptUsage(40, 4000)));
  }
}
