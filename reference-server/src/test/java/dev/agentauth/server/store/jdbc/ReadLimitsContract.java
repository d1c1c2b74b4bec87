package dev.agentauth.server.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.server.AgentAuthServer;
import dev.agentauth.server.ServerHarness;
import dev.agentauth.server.store.PageRequest;
import dev.agentauth.server.store.ReceiptFilter;
import dev.agentauth.server.store.StoreUnavailableException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Reads are bounded in time: a read that finds every read connection busy waits at most {@link
 * JdbcStore.ReadLimits#connectionWait}, and a read whose statements run longer than {@link
 * JdbcStore.ReadLimits#timeLimit} is stopped; both answer 503 {@code unavailable} with {@code
 * Retry-After}, and the connection serves the next read.
 */
@Timeout(60) // a wait without end fails the test instead of stalling the build
abstract class ReadLimitsContract {
  static final ReceiptFilter ALL =
      new ReceiptFilter(null, null, null, null, null, null, null, null, null);

  private final ExecutorService threads = Executors.newCachedThreadPool();
  final CountDownLatch release = new CountDownLatch(1);

  /** A fresh store with {@code limits}. */
  abstract JdbcStore open(JdbcStore.ReadLimits limits);

  /** A query that runs for many seconds. */
  abstract String slowQuery();

  @AfterEach
  void releaseHeldReads() throws InterruptedException {
    release.countDown();
    threads.shutdown();
    assertThat(threads.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
  }

  /** Starts {@code n} reads that each hold a read connection until the test ends. */
  List<Future<?>> holdReads(JdbcStore store, int n) throws InterruptedException {
    CountDownLatch holding = new CountDownLatch(n);
    List<Future<?>> held = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      held.add(
          threads.submit(
              () ->
                  store.read(
                      tx -> {
                        holding.countDown();
                        try {
                          release.await();
                        } catch (InterruptedException e) {
                          Thread.currentThread().interrupt();
                        }
                        return null;
                      })));
    }
    assertThat(holding.await(20, TimeUnit.SECONDS)).as("%d reads hold a connection", n).isTrue();
    return held;
  }

  @Test
  void aListThatFindsEveryReadConnectionBusyAnswers503WithRetryAfterWhenItsWaitRunsOut()
      throws InterruptedException {
    JdbcStore store =
        open(new JdbcStore.ReadLimits(2, Duration.ofMillis(300), Duration.ofSeconds(10)));
    try (ServerHarness h = ServerHarness.start(AgentAuthServer.builder().store(store))) {
      assertThat(h.get("/v1/receipts").status()).isEqualTo(200); // also caches the API key
      holdReads(store, 2);

      long start = System.nanoTime();
      ServerHarness.Resp r = h.get("/v1/receipts?user_id=nobody");
      long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

      assertThat(r.status()).isEqualTo(503);
      assertThat(r.code()).isEqualTo("unavailable");
      assertThat(r.header("Retry-After")).isEqualTo("1");
      assertThat(tookMs).isBetween(250L, 5_000L);

      release.countDown();
      assertThat(h.get("/v1/receipts?user_id=nobody").status()).isEqualTo(200);
    }
  }

  @Test
  void aReadThatRunsPastItsTimeLimitIsStoppedAndAnswersUnavailable() {
    JdbcStore store =
        open(new JdbcStore.ReadLimits(1, Duration.ofSeconds(5), Duration.ofMillis(300)));
    try {
      long start = System.nanoTime();
      assertThatThrownBy(() -> store.read(tx -> runQuery((JdbcTx) tx, slowQuery())))
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("limit of 300 ms")
          .satisfies(
              e -> assertThat(((StoreUnavailableException) e).retryAfterSeconds()).isEqualTo(1));
      assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(5_000L);

      // The one read connection serves the next read, under a fresh limit.
      assertThat(store.read(tx -> tx.listReceipts("ws_1", ALL, new PageRequest(null, 10))).items())
          .isEmpty();
    } finally {
      store.close();
    }
  }

  private static Long runQuery(JdbcTx tx, String sql) {
    try {
      PreparedStatement ps = tx.statements().prepare(sql);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    } catch (SQLException e) {
      throw new dev.agentauth.server.store.StoreException("query failed: " + e, e);
    }
  }
}
