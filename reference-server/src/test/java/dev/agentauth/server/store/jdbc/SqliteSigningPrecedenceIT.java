package dev.agentauth.server.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.server.store.Store.GroupKey;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SQLite writer runs queued signature-storing work ahead of queued checks, so signing keeps its
 * share of the writer however many checks queue up.
 */
class SqliteSigningPrecedenceIT {
  private static final int CHECKS = 600;

  @TempDir Path dir;

  /** Waits until {@code t} blocks (on the writer), failing after 10 s. */
  private static void awaitBlocked(Thread t) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (t.getState() != Thread.State.WAITING && t.getState() != Thread.State.TIMED_WAITING) {
      assertThat(System.nanoTime()).as(t.getName() + " queued").isLessThan(deadline);
      Thread.onSpinWait();
    }
  }

  @Test
  void queuedSigningWorkRunsBeforeChecksQueuedAheadOfIt() throws Exception {
    JdbcStore store = JdbcStore.sqlite(dir.resolve("precedence.db"), MasterKey.random());
    CountDownLatch writerBusy = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger checksRun = new AtomicInteger();
    AtomicReference<Integer> checksBeforeSigning = new AtomicReference<>();
    List<Thread> threads = new ArrayList<>();
    try {
      // Hold the writer in one transaction while the checks and the signing work queue up.
      Thread blocker =
          new Thread(
              () ->
                  store.inTransaction(
                      tx -> {
                        writerBusy.countDown();
                        try {
                          release.await();
                        } catch (InterruptedException e) {
                          Thread.currentThread().interrupt();
                        }
                        return null;
                      }));
      blocker.start();
      threads.add(blocker);
      assertThat(writerBusy.await(10, TimeUnit.SECONDS)).isTrue();
      for (int i = 0; i < CHECKS; i++) {
        GroupKey key = new GroupKey("ws_a", "auth_" + (i % 32), "doc:" + i);
        Thread check =
            new Thread(
                () ->
                    store.inGroupedTransaction(
                        key,
                        tx -> {
                          checksRun.incrementAndGet();
                          return null;
                        }));
        check.start();
        threads.add(check);
        awaitBlocked(check);
      }
      Thread signing =
          new Thread(
              () ->
                  store.inSigningTransaction(
                      tx -> {
                        checksBeforeSigning.set(checksRun.get());
                        return null;
                      }));
      signing.start();
      threads.add(signing);
      awaitBlocked(signing);

      release.countDown();
      for (Thread t : threads) {
        t.join(TimeUnit.SECONDS.toMillis(30));
      }

      assertThat(checksRun.get()).isEqualTo(CHECKS);
      // Queued behind 600 checks, it still ran in the writer's next batch, before any of them.
      assertThat(checksBeforeSigning.get()).isZero();
    } finally {
      release.countDown();
      store.close();
    }
  }
}
