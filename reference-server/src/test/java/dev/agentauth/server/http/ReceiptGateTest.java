package dev.agentauth.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.server.service.ErrorCode;
import dev.agentauth.server.service.ServiceException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The receipt gate on one thread: its executor only collects the works granted a permit, and the
 * test runs them one by one, so the order of grants is exact.
 */
class ReceiptGateTest {
  private static final Duration LONG = Duration.ofMinutes(5);

  private final ArrayDeque<Runnable> granted = new ArrayDeque<>();
  private final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1);
  private final List<Long> waits = new ArrayList<>();

  @AfterEach
  void stop() {
    timer.shutdownNow();
  }

  private ReceiptGate gate(int inFlight, int perWorkspace, long bytesPerWorkspace, long bytes) {
    return gate(new ReceiptGate.Limits(inFlight, perWorkspace, bytesPerWorkspace, bytes, LONG));
  }

  private ReceiptGate gate(ReceiptGate.Limits limits) {
    return new ReceiptGate(limits, granted::add, timer, waits::add);
  }

  /** Runs the granted works, each granting the next as it ends, until none is left. */
  private void runGranted() {
    while (!granted.isEmpty()) {
      granted.poll().run();
    }
  }

  /**
   * Holds the only permit (its work runs at once, here) while {@code whileHeld} queues others; the
   * permit goes on to them when it returns.
   */
  private static void holding(ReceiptGate gate, Runnable whileHeld) {
    CompletableFuture<Object> held =
        gate.run(
            "holder",
            0,
            () -> {
              whileHeld.run();
              return "held";
            });
    assertThat(held).isCompletedWithValue("held");
  }

  private static Supplier<String> recording(List<String> order, String name) {
    return () -> {
      order.add(name);
      return name;
    };
  }

  @Test
  void aFreePermitRunsTheWorkAtOnceOnTheCallersThread() {
    ReceiptGate gate = gate(2, 4, 1 << 20, 1 << 20);
    Thread caller = Thread.currentThread();
    CompletableFuture<Thread> ran = gate.run("a", 10, Thread::currentThread);
    assertThat(ran).isCompletedWithValue(caller);
    assertThat(granted).isEmpty();
    assertThat(gate.inFlight()).isZero();
    assertThat(gate.admittedAtOnce()).isEqualTo(1);
    assertThat(waits).containsExactly(0L);
  }

  @Test
  void queuedWorkspacesAreServedInTurnOneWorkEach() {
    ReceiptGate gate = gate(1, 100, 1 << 20, 1 << 20);
    List<String> order = new ArrayList<>();
    List<CompletableFuture<String>> results = new ArrayList<>();
    holding(
        gate,
        () -> {
          for (int i = 1; i <= 5; i++) {
            results.add(gate.run("a", 1, recording(order, "a" + i)));
          }
          results.add(gate.run("b", 1, recording(order, "b1")));
          results.add(gate.run("b", 1, recording(order, "b2")));
          results.add(gate.run("c", 1, recording(order, "c1")));
          assertThat(gate.queued()).isEqualTo(8);
          assertThat(gate.queued("a")).isEqualTo(5);
          assertThat(gate.queuedBytes()).isEqualTo(8);
          assertThat(order).isEmpty();
        });
    // The permit went to the first queued work; each work hands it to the next in turn.
    assertThat(granted).hasSize(1);
    runGranted();
    assertThat(order).containsExactly("a1", "b1", "c1", "a2", "b2", "a3", "a4", "a5");
    assertThat(results).allMatch(f -> f.isDone() && !f.isCompletedExceptionally());
    assertThat(gate.queued()).isZero();
    assertThat(gate.queuedBytes()).isZero();
    assertThat(gate.inFlight()).isZero();
    assertThat(gate.admittedAfterWait()).isEqualTo(8);
    assertThat(waits).hasSize(9);
  }

  @Test
  void aWorkspaceJoiningLateWaitsForOneWorkOfEachOtherNotForTheirQueues() {
    ReceiptGate gate = gate(1, 100, 1 << 20, 1 << 20);
    List<String> order = new ArrayList<>();
    holding(
        gate,
        () -> {
          for (int i = 1; i <= 50; i++) {
            gate.run("flood", 0, recording(order, "flood" + i));
          }
        });
    // Two of the flood's works run and a third is granted; then the bystander arrives. It waits
    // for that one and one more of the flood's, not for the 47 others.
    granted.poll().run();
    granted.poll().run();
    assertThat(granted).hasSize(1);
    gate.run("bystander", 0, recording(order, "bystander"));
    runGranted();
    assertThat(order.indexOf("bystander")).isEqualTo(4);
    assertThat(order).hasSize(51);
  }

  @Test
  void aFullWorkspaceQueueIs429AtOnceWhileAnotherWorkspaceStillQueues() {
    ReceiptGate gate = gate(1, 2, 1 << 20, 1 << 20);
    holding(
        gate,
        () -> {
          gate.run("a", 1, () -> "a1");
          gate.run("a", 1, () -> "a2");
          assertThatThrownBy(() -> gate.run("a", 1, () -> "a3"))
              .isInstanceOfSatisfying(
                  ServiceException.class,
                  e -> {
                    assertThat(e.errorCode()).isEqualTo(ErrorCode.RATE_LIMITED);
                    assertThat(e.status()).isEqualTo(429);
                    assertThat(e.retryAfter()).isEqualTo("1");
                    assertThat(e.detail()).contains("2 checks and new authorizations waiting");
                  });
          assertThat(gate.run("b", 1, () -> "b1")).isNotDone();
        });
    assertThat(gate.refusedWorkspace()).isEqualTo(1);
    runGranted();
    assertThat(gate.queued()).isZero();
  }

  @Test
  void theBodyBytesBoundsRefuse429ForTheWorkspaceAnd503ForAll() {
    ReceiptGate gate = gate(1, 100, 1_000, 1_500);
    holding(
        gate,
        () -> {
          gate.run("a", 600, () -> "a1");
          assertThatThrownBy(() -> gate.run("a", 600, () -> "a2"))
              .isInstanceOfSatisfying(
                  ServiceException.class, e -> assertThat(e.status()).isEqualTo(429));
          gate.run("b", 800, () -> "b1");
          // 1,400 bytes queued: 200 more would pass the bound of all, whatever the workspace.
          assertThatThrownBy(() -> gate.run("c", 200, () -> "c1"))
              .isInstanceOfSatisfying(
                  ServiceException.class,
                  e -> {
                    assertThat(e.status()).isEqualTo(503);
                    assertThat(e.errorCode()).isEqualTo(ErrorCode.UNAVAILABLE);
                    assertThat(e.retryAfter()).isEqualTo("1");
                  });
          assertThat(gate.queuedBytes()).isEqualTo(1_400);
        });
    assertThat(gate.refusedWorkspace()).isEqualTo(1);
    assertThat(gate.refusedAll()).isEqualTo(1);
    runGranted();
    assertThat(gate.queuedBytes()).isZero();
  }

  @Test
  void aWorkQueuedPastTheTimeoutIs503AndNeverRuns() throws Exception {
    ReceiptGate gate =
        gate(new ReceiptGate.Limits(1, 100, 1 << 20, 1 << 20, Duration.ofMillis(50)));
    List<String> order = new ArrayList<>();
    // The permit is held (its work has not returned) while the queued work times out.
    holding(
        gate,
        () -> {
          CompletableFuture<String> f = gate.run("a", 7, recording(order, "late"));
          ExecutionException failure =
              org.junit.jupiter.api.Assertions.assertThrows(
                  ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
          assertThat(failure.getCause())
              .isInstanceOfSatisfying(
                  ServiceException.class,
                  e -> {
                    assertThat(e.status()).isEqualTo(503);
                    assertThat(e.retryAfter()).isEqualTo("1");
                    assertThat(e.detail()).contains("50 ms");
                  });
          assertThat(gate.queued()).isZero();
          assertThat(gate.queuedBytes()).isZero();
        });
    assertThat(granted).isEmpty();
    assertThat(order).isEmpty();
    assertThat(gate.timedOut()).isEqualTo(1);
    assertThat(gate.inFlight()).isZero();
    // The permit is free again.
    assertThat(gate.run("a", 0, () -> "next")).isCompletedWithValue("next");
  }

  @Test
  void whatAWorkThrowsReachesItsCallerAndThePermitGoesOn() {
    ReceiptGate gate = gate(1, 100, 1 << 20, 1 << 20);
    ServiceException invalid = ServiceException.invalid("scopes", "must not be empty");
    assertThatThrownBy(
            () ->
                gate.run(
                    "a",
                    0,
                    () -> {
                      throw invalid;
                    }))
        .isSameAs(invalid);
    assertThat(gate.inFlight()).isZero();

    List<CompletableFuture<String>> queued = new ArrayList<>();
    holding(
        gate,
        () -> {
          queued.add(
              gate.run(
                  "a",
                  0,
                  () -> {
                    throw invalid;
                  }));
          queued.add(gate.run("a", 0, () -> "after"));
        });
    runGranted();
    assertThat(queued.get(0)).isCompletedExceptionally();
    assertThatThrownBy(() -> queued.get(0).join()).hasCause(invalid);
    assertThat(queued.get(1)).isCompletedWithValue("after");
    assertThat(gate.inFlight()).isZero();
  }

  @Test
  void aStoppedExecutorFailsTheGrantedWorkWith503AndFreesThePermit() {
    ReceiptGate gate =
        new ReceiptGate(
            new ReceiptGate.Limits(1, 100, 1 << 20, 1 << 20, LONG),
            r -> {
              throw new java.util.concurrent.RejectedExecutionException("stopped");
            },
            timer,
            waits::add);
    List<CompletableFuture<String>> queued = new ArrayList<>();
    holding(gate, () -> queued.add(gate.run("a", 0, () -> "never")));
    assertThatThrownBy(() -> queued.get(0).join())
        .hasCauseInstanceOf(ServiceException.class)
        .cause()
        .hasMessageContaining("stopping");
    assertThat(gate.inFlight()).isZero();
  }

  @Test
  void limitsAreChecked() {
    assertThatThrownBy(() -> new ReceiptGate.Limits(0, 1, 1, 1, LONG))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ReceiptGate.Limits(1, 1, 1, 1, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(ReceiptGate.Limits.DEFAULT.inFlight()).isEqualTo(ReceiptGate.DEFAULT_IN_FLIGHT);
    assertThat(ReceiptGate.Limits.DEFAULT.withInFlight(3).queuedPerWorkspace())
        .isEqualTo(ReceiptGate.Limits.DEFAULT.queuedPerWorkspace());
  }
}
