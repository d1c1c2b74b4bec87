package dev.agentauth.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.model.PendingReceipt;
import dev.agentauth.model.SignedReceipt;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import org.junit.jupiter.api.Test;

/** awaitSigned polls with backoff guided by ready_at_estimate, within its timeout. */
class AwaitSignedTest extends MockServerSupport {
  private static final String ID = "01JDQ3Z8W4K2M7N9P1Q3R5S7T9";

  /** A pending answer whose estimate lies {@code millis} after the fake clock's start. */
  private static MockResponse pendingReadyAt(long millis) {
    String at = FakeTiming.START.plusMillis(millis).toString();
    return json(
        200,
        "{\"status\":\"pending\",\"receipt_id\":\""
            + ID
            + "\",\"ready_at_estimate\":\""
            + at
            + "\",\"url\":\"http://localhost/v1/receipts/"
            + ID
            + "\"}");
  }

  @Test
  void waitsUntilTheEstimateThenReturnsTheSignedReceipt() {
    server.enqueue(pendingReadyAt(300));
    server.enqueue(fixture(200, "receipt-signed.json"));

    SignedReceipt r = client.receipts().awaitSigned(ID, Duration.ofSeconds(10));

    assertThat(r.receiptId()).isEqualTo(ID);
    assertThat(r.signature().alg()).isEqualTo("Ed25519");
    assertThat(timing.sleeps()).containsExactly(Duration.ofMillis(300));
  }

  @Test
  void backsOffExponentiallyWhenTheEstimateHasPassed() {
    for (int i = 0; i < 4; i++) {
      server.enqueue(pendingReadyAt(-1000));
    }
    server.enqueue(fixture(200, "receipt-signed.json"));

    client.receipts().awaitSigned(ID, Duration.ofSeconds(10));

    assertThat(timing.sleeps())
        .containsExactly(
            Duration.ofMillis(100),
            Duration.ofMillis(200),
            Duration.ofMillis(400),
            Duration.ofMillis(800));
  }

  @Test
  void givesUpAtTheTimeoutAfterALastPoll() {
    for (int i = 0; i < 20; i++) {
      server.enqueue(pendingReadyAt(-1000));
    }

    assertThatThrownBy(() -> client.receipts().awaitSigned(ID, Duration.ofSeconds(1)))
        .isInstanceOfSatisfying(
            ReceiptWaitTimeoutException.class,
            e -> {
              assertThat(e.receiptId()).isEqualTo(ID);
              assertThat(e.timeout()).isEqualTo(Duration.ofSeconds(1));
              assertThat(e.requestId()).isEqualTo("req_200");
            });
    // 100 + 200 + 400 ms, then the 300 ms left, then one last poll at the deadline
    assertThat(timing.sleeps())
        .containsExactly(
            Duration.ofMillis(100),
            Duration.ofMillis(200),
            Duration.ofMillis(400),
            Duration.ofMillis(300));
    assertThat(timing.totalWaited()).isEqualTo(Duration.ofSeconds(1));
    assertThat(server.getRequestCount()).isEqualTo(5);
  }

  @Test
  void alreadySignedReceiptRefReturnsWithoutARequest() throws Exception {
    SignedReceipt signed =
        client
            .config()
            .mapper()
            .readValue(
                Fixtures.body("receipt-signed.json"),
                dev.agentauth.model.ReceiptLookup.Signed.class)
            .receipt();

    assertThat(client.receipts().awaitSigned(signed, Duration.ofSeconds(1))).isSameAs(signed);
    assertThat(server.getRequestCount()).isZero();
  }

  @Test
  void pendingEnvelopeWaitsForItsEstimateBeforeTheFirstPoll() {
    server.enqueue(fixture(200, "receipt-signed.json"));
    PendingReceipt envelope =
        new PendingReceipt(ID, FakeTiming.START.plusMillis(250), "http://localhost/v1/receipts/x");

    client.receipts().awaitSigned(envelope, Duration.ofSeconds(5));

    assertThat(timing.sleeps()).containsExactly(Duration.ofMillis(250));
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void estimateFarAheadOfTheLocalClockIsTakenAsSkewAndNotWaitedFor() {
    // the server's clock runs an hour ahead: its estimates say nothing about when to poll
    server.enqueue(pendingReadyAt(3_600_000));
    server.enqueue(fixture(200, "receipt-signed.json"));
    PendingReceipt envelope =
        new PendingReceipt(
            ID, FakeTiming.START.plusSeconds(3_600), "http://localhost/v1/receipts/x");

    client.receipts().awaitSigned(envelope, Duration.ofSeconds(10));

    // first poll at once, then the ordinary backoff instead of a 5 s wait each time
    assertThat(timing.sleeps()).containsExactly(Duration.ofMillis(100));
    assertThat(server.getRequestCount()).isEqualTo(2);
  }

  @Test
  void unknownReceiptFailsWithNotFound() {
    server.enqueue(fixture(404, "problem-not-found.json"));

    assertThatThrownBy(() -> client.receipts().awaitSigned(ID, Duration.ofSeconds(5)))
        .isInstanceOf(NotFoundException.class);
  }

  @Test
  void asyncAwaitUsesTimerDelaysNotSleeps() throws Exception {
    server.enqueue(pendingReadyAt(500));
    server.enqueue(pendingReadyAt(-1));
    server.enqueue(fixture(200, "receipt-signed.json"));

    SignedReceipt r =
        client.async().receipts().awaitSigned(ID, Duration.ofSeconds(10)).get(5, TimeUnit.SECONDS);

    assertThat(r.receiptId()).isEqualTo(ID);
    assertThat(timing.sleeps()).isEmpty();
    assertThat(timing.delays())
        .containsExactly(Duration.ZERO, Duration.ofMillis(500), Duration.ofMillis(200));
  }

  @Test
  void asyncAwaitTimesOutExceptionally() {
    for (int i = 0; i < 5; i++) {
      server.enqueue(pendingReadyAt(-1));
    }

    assertThatThrownBy(
            () ->
                client
                    .async()
                    .receipts()
                    .awaitSigned(ID, Duration.ofMillis(250))
                    .get(5, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(ReceiptWaitTimeoutException.class);
  }
}
