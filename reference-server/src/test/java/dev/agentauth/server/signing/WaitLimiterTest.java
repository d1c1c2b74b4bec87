package dev.agentauth.server.signing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The bounds on requests waiting for signatures, and the expected delay that refuses a wait. */
class WaitLimiterTest {

  @Test
  void aWorkspaceMayHaveAtMostItsWaitersAtOnce() {
    WaitLimiter w = new WaitLimiter(2, 64);
    assertThat(w.tryEnter("flood")).isTrue();
    assertThat(w.tryEnter("flood")).isTrue();
    assertThat(w.tryEnter("flood")).as("a third waiter of one workspace").isFalse();
    assertThat(w.tryEnter("other")).as("another workspace still waits").isTrue();
    assertThat(w.waiting("flood")).isEqualTo(2);
    w.leave("flood");
    assertThat(w.tryEnter("flood")).isTrue();
    assertThat(w.waiting()).isEqualTo(3);
  }

  @Test
  void allWorkspacesTogetherHaveAtMostTheTotal() {
    WaitLimiter w = new WaitLimiter(8, 3);
    assertThat(w.tryEnter("a")).isTrue();
    assertThat(w.tryEnter("b")).isTrue();
    assertThat(w.tryEnter("c")).isTrue();
    assertThat(w.tryEnter("d")).as("the fourth waiter of all").isFalse();
    w.leave("b");
    assertThat(w.tryEnter("d")).isTrue();
    assertThat(w.waiting()).isEqualTo(3);
    assertThat(w.waiting("b")).isZero();
  }

  @Test
  void zeroWaitersMeansNoRequestWaits() {
    WaitLimiter w = new WaitLimiter(0, 64);
    assertThat(w.tryEnter("a")).isFalse();
  }

  @Test
  void leavingWithoutEnteringIsAMistake() {
    WaitLimiter w = new WaitLimiter(1, 1);
    assertThatThrownBy(() -> w.leave("a")).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void theExpectedDelayCountsTheWorkspacesOwnBacklogTimesTheWorkspacesServedInTurn() {
    double perReceipt = 100_000; // 0.1 ms a signature on each of the two signers
    long commit = 2_000_000;
    // Alone: its own 10 + 1 receipts.
    assertThat(SigningService.expectedDelayNanos(10, 1, 11, 1, perReceipt))
        .isEqualTo(11 * 50_000 + commit);
    // A quiet workspace next to a flood of 40,000: one turn of 2 workspaces per receipt of its own.
    assertThat(SigningService.expectedDelayNanos(0, 1, 40_001, 2, perReceipt))
        .isEqualTo(2 * 50_000 + commit);
    // The flooding workspace itself: every receipt before its own last one.
    assertThat(SigningService.expectedDelayNanos(40_000, 1, 40_001, 2, perReceipt))
        .isEqualTo(40_001 * 50_000 + commit);
    assertThat(SigningService.expectedDelayNanos(40_000, 1, 40_001, 2, perReceipt))
        .isGreaterThan(Duration.ofSeconds(1).toNanos());
  }
}
