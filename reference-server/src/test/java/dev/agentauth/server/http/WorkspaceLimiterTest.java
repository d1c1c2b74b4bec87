package dev.agentauth.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.server.service.ServiceException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class WorkspaceLimiterTest {
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private final CountDownLatch release = new CountDownLatch(1);

  @AfterEach
  void stop() throws InterruptedException {
    release.countDown();
    threads.shutdown();
    assertThat(threads.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
  }

  /** Starts {@code n} reads of {@code workspace} that stay in flight until the test ends. */
  private void holdReads(WorkspaceLimiter limiter, String workspace, int n)
      throws InterruptedException {
    CountDownLatch inFlight = new CountDownLatch(n);
    for (int i = 0; i < n; i++) {
      threads.submit(
          () ->
              limiter.run(
                  workspace,
                  () -> {
                    inFlight.countDown();
                    try {
                      release.await();
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    }
                    return null;
                  }));
    }
    assertThat(inFlight.await(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void aReadBeyondItsWorkspacesLimitAnswers429RateLimitedWithRetryAfterWhenItsWaitRunsOut()
      throws InterruptedException {
    WorkspaceLimiter limiter = new WorkspaceLimiter(2, Duration.ofMillis(100));
    holdReads(limiter, "ws_a", 2);

    assertThatThrownBy(() -> limiter.run("ws_a", () -> "read"))
        .isInstanceOfSatisfying(
            ServiceException.class,
            e -> {
              assertThat(e.status()).isEqualTo(429);
              assertThat(e.code()).isEqualTo("rate_limited");
              assertThat(e.retryAfter()).isEqualTo("1");
              assertThat(e.getMessage()).contains("2 reads in flight");
            });
    // Another workspace's reads are not counted against it.
    assertThat(limiter.run("ws_b", () -> "read")).isEqualTo("read");
  }

  @Test
  void aReadWaitsForOneOfItsWorkspacesReadsToEnd() throws Exception {
    WorkspaceLimiter limiter = new WorkspaceLimiter(1, Duration.ofSeconds(30));
    holdReads(limiter, "ws_a", 1);
    Future<String> waiting = threads.submit(() -> limiter.run("ws_a", () -> "read"));
    release.countDown();
    assertThat(waiting.get(10, TimeUnit.SECONDS)).isEqualTo("read");
  }

  @Test
  void aReadThatFailsGivesItsPlaceBack() {
    WorkspaceLimiter limiter = new WorkspaceLimiter(1, Duration.ZERO);
    assertThatThrownBy(
            () ->
                limiter.run(
                    "ws_a",
                    () -> {
                      throw new IllegalStateException("store failed");
                    }))
        .hasMessage("store failed");
    assertThat(limiter.run("ws_a", () -> "read")).isEqualTo("read");
  }

  @Test
  void readsBeyondThoseInFlightAndAsManyWaitingAreRefusedWithoutWaiting()
      throws InterruptedException {
    WorkspaceLimiter limiter = new WorkspaceLimiter(2, Duration.ofSeconds(30), 2);
    holdReads(limiter, "ws_a", 2);
    // Two more wait (for up to 30 s) behind the two in flight.
    for (int i = 0; i < 2; i++) {
      threads.submit(() -> limiter.run("ws_a", () -> "waited"));
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (waiting(limiter) < 2) {
      assertThat(System.nanoTime()).as("two reads waiting").isLessThan(deadline);
      Thread.onSpinWait();
    }

    long start = System.nanoTime();
    assertThatThrownBy(() -> limiter.run("ws_a", () -> "read"))
        .isInstanceOfSatisfying(ServiceException.class, e -> assertThat(e.status()).isEqualTo(429));
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    assertThat(limiter.run("ws_b", () -> "other")).isEqualTo("other");
  }

  private static int waiting(WorkspaceLimiter limiter) {
    return limiter.waiting("ws_a");
  }
}
