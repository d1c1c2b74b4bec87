package dev.agentauth.server.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.agentauth.server.domain.NonceRow;
import dev.agentauth.server.store.PostgresTestDatabase;
import dev.agentauth.server.store.Store.GroupKey;
import dev.agentauth.server.store.StoreUnavailableException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The PostgreSQL group threads survive an Error of a grouped job, and a caller whose wait for them
 * runs out gets {@link StoreUnavailableException}; its job, if not started, never runs. Skipped
 * when no PostgreSQL answers (see {@link PostgresTestDatabase}).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PostgresGrouperFailureIT {
  private static final Duration SHORT_WAIT = Duration.ofMillis(300);
  private static final int GROUPERS = 2;

  private String url;
  private JdbcStore store;

  @BeforeEach
  void open() {
    PostgresTestDatabase.assumeAvailable();
    url = PostgresTestDatabase.freshSchemaUrl();
    store = JdbcStore.postgres(url, MasterKey.random());
  }

  @AfterEach
  void close() {
    try {
      if (store != null) {
        store.close();
      }
    } finally {
      if (url != null) {
        PostgresTestDatabase.dropSchema(url);
      }
    }
  }

  private static GroupKey key(int n) {
    return new GroupKey("ws_p", "auth_" + n, "doc:1");
  }

  private Object groupedPut(int n, String name) {
    return store.inGroupedTransaction(
        key(n),
        tx -> {
          tx.insertNonce(
              new NonceRow(
                  "ws_p",
                  name,
                  "auth_" + n,
                  "doc.read",
                  "doc:1",
                  Instant.EPOCH,
                  Instant.EPOCH.plusSeconds(60),
                  null,
                  null));
          return name;
        });
  }

  private boolean stored(String name) {
    return store.read(tx -> tx.nonce("ws_p", name)).isPresent();
  }

  @Test
  void aGroupedJobThrowingOutOfMemoryErrorFailsAndTheGroupThreadsGoOn() {
    for (int i = 0; i < 2 * GROUPERS; i++) {
      assertThatThrownBy(
              () ->
                  store.inGroupedTransaction(
                      key(1),
                      tx -> {
                        throw new OutOfMemoryError("simulated: Java heap space");
                      }))
          .isInstanceOf(OutOfMemoryError.class);
    }
    assertThat(store.isLive()).as("the group threads are alive").isTrue();
    assertThat(groupedPut(2, "after")).isEqualTo("after");
    assertThat(stored("after")).isTrue();
  }

  @Test
  void whenEveryGroupThreadIsStuckACallerGetsUnavailableAndItsJobNeverRuns() {
    store.writeWait(SHORT_WAIT);
    CountDownLatch running = new CountDownLatch(GROUPERS);
    CountDownLatch release = new CountDownLatch(1);
    List<CompletableFuture<Object>> stuck = new ArrayList<>();
    for (int i = 0; i < GROUPERS; i++) {
      int n = i;
      stuck.add(
          CompletableFuture.supplyAsync(
              () ->
                  store.inGroupedTransaction(
                      key(10 + n),
                      tx -> {
                        running.countDown();
                        await(release);
                        return null;
                      })));
      // One at a time, so that each group thread takes one.
      awaitCount(running, GROUPERS - 1 - i);
    }
    AtomicBoolean ran = new AtomicBoolean();
    try {
      StoreUnavailableException e =
          assertTimeoutPreemptively(
              Duration.ofSeconds(10),
              () -> {
                try {
                  store.inGroupedTransaction(
                      key(99),
                      tx -> {
                        ran.set(true);
                        return null;
                      });
                } catch (StoreUnavailableException u) {
                  return u;
                }
                throw new AssertionError("expected StoreUnavailableException");
              });
      assertThat(e.retryAfterSeconds()).isEqualTo(1);
    } finally {
      store.writeWait(JdbcStore.WRITE_WAIT);
      release.countDown();
    }
    stuck.forEach(
        f -> assertThatThrownBy(f::join).hasCauseInstanceOf(StoreUnavailableException.class));
    assertThat(groupedPut(3, "later")).isEqualTo("later");
    assertThat(ran).as("the abandoned job ran").isFalse();
  }

  private static void awaitCount(CountDownLatch latch, long count) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (latch.getCount() > count) {
      assertThat(System.nanoTime()).as("a group thread took the job").isLessThan(deadline);
      Thread.onSpinWait();
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      assertThat(latch.await(10, TimeUnit.SECONDS)).as("latch").isTrue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
