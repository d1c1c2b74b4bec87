package dev.agentauth.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.model.PendingReceipt;
import dev.agentauth.model.SignedReceipt;
import java.time.Duration;
import java.util.List;
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

  /** A signed answer for {@code id}, with the receipt member spaced as a server might serve it. */
  private static String signedAnswer(String id) {
    return "{\"status\":\"signed\",\"receipt\":" + receiptText(id) + "}";
  }

  /** The fixture's receipt object for {@code id}, as the fixture file spaces it. */
  private static String receiptText(String id) {
    String body = Fixtures.body("receipt-signed.json");
    int end = body.lastIndexOf('}', body.lastIndexOf('}') - 1) + 1; // the receipt's closing brace
    return body.substring(body.indexOf('{', 1), end).replace(ID, id);
  }

  private static String page(boolean hasMore, String nextCursor, String... ids) {
    StringBuilder b = new StringBuilder("{\"receipts\":[");
    for (int i = 0; i < ids.length; i++) {
      b.append(i == 0 ? "" : ",")
          .append("{\"receipt_id\":\"")
          .append(ids[i])
          .append("\",\"authorization_id\":\"auth_1\",\"scope\":\"email.send\",\"event\":null,")
          .append("\"decision\":\"allow\",\"signed\":false,")
          .append("\"created_at\":\"2026-11-22T10:00:00.000Z\"}");
    }
    return b.append("],\"has_more\":")
        .append(hasMore)
        .append(",\"next_cursor\":")
        .append(nextCursor == null ? "null" : "\"" + nextCursor + "\"")
        .append("}")
        .toString();
  }

  @Test
  void awaitSignedJsonWaitsThenReturnsTheReceiptTextAsServed() {
    server.enqueue(pendingReadyAt(300));
    server.enqueue(json(200, signedAnswer(ID)));

    String text = client.receipts().awaitSignedJson(ID, Duration.ofSeconds(10));

    assertThat(text).isEqualTo(receiptText(ID)).startsWith("{\n    \"version\"");
    assertThat(timing.sleeps()).containsExactly(Duration.ofMillis(300));
    assertThat(server.getRequestCount()).isEqualTo(2);
  }

  @Test
  void chainJsonListsEveryPageThenFetchesEachReceiptInOrder() throws Exception {
    String a = "01JDQ3Z8W4K2M7N9P1Q3R5S7A1";
    String b = "01JDQ3Z8W4K2M7N9P1Q3R5S7A2";
    String c = "01JDQ3Z8W4K2M7N9P1Q3R5S7A3";
    server.enqueue(json(200, page(true, "cur_2", a, b)));
    server.enqueue(json(200, signedAnswer(a)));
    server.enqueue(pendingReadyAt(-1000));
    server.enqueue(json(200, signedAnswer(b)));
    server.enqueue(json(200, page(false, null, c)));
    server.enqueue(json(200, signedAnswer(c)));

    List<String> chain = client.receipts().chainJson("auth_1", Duration.ofSeconds(10));

    assertThat(chain).containsExactly(receiptText(a), receiptText(b), receiptText(c));
    assertThat(take().getUrl().encodedQuery()).isEqualTo("authorization_id=auth_1&limit=100");
    assertThat(take().getUrl().encodedPath()).isEqualTo("/v1/receipts/" + a);
    take();
    take();
    assertThat(take().getUrl().encodedQuery())
        .isEqualTo("authorization_id=auth_1&cursor=cur_2&limit=100");
    assertThat(timing.sleeps()).containsExactly(Duration.ofMillis(100));
  }

  @Test
  void chainJsonSharesOneTimeoutAcrossItsReceipts() {
    String a = "01JDQ3Z8W4K2M7N9P1Q3R5S7A1";
    String b = "01JDQ3Z8W4K2M7N9P1Q3R5S7A2";
    server.enqueue(json(200, page(false, null, a, b)));
    server.enqueue(pendingReadyAt(-1000));
    server.enqueue(json(200, signedAnswer(a)));
    for (int i = 0; i < 10; i++) {
      server.enqueue(pendingReadyAt(-1000));
    }

    assertThatThrownBy(() -> client.receipts().chainJson("auth_1", Duration.ofSeconds(1)))
        .isInstanceOfSatisfying(
            ReceiptWaitTimeoutException.class,
            e -> {
              assertThat(e.receiptId()).isEqualTo(b);
              assertThat(e.timeout()).isEqualTo(Duration.ofSeconds(1));
            });
    // a: 100 ms; b: 100, 200, 400 ms, then the 200 ms left, then one last poll at the deadline
    assertThat(timing.sleeps())
        .containsExactly(
            Duration.ofMillis(100),
            Duration.ofMillis(100),
            Duration.ofMillis(200),
            Duration.ofMillis(400),
            Duration.ofMillis(200));
    assertThat(timing.totalWaited()).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void chainJsonOfAnAuthorizationWithoutReceiptsIsEmpty() throws Exception {
    server.enqueue(json(200, page(false, null)));
    server.enqueue(json(200, page(false, null)));

    assertThat(client.receipts().chainJson("auth_none", Duration.ofSeconds(1))).isEmpty();
    assertThat(
            client
                .async()
                .receipts()
                .chainJson("auth_none", Duration.ofSeconds(1))
                .get(5, TimeUnit.SECONDS))
        .isEmpty();
    assertThat(server.getRequestCount()).isEqualTo(2);
  }

  @Test
  void asyncChainJsonWaitsOnTheTimerAndKeepsTheOrder() throws Exception {
    String a = "01JDQ3Z8W4K2M7N9P1Q3R5S7A1";
    String b = "01JDQ3Z8W4K2M7N9P1Q3R5S7A2";
    server.enqueue(json(200, page(true, "cur_2", a)));
    server.enqueue(pendingReadyAt(-1000));
    server.enqueue(json(200, signedAnswer(a)));
    server.enqueue(json(200, page(false, null, b)));
    server.enqueue(json(200, signedAnswer(b)));

    List<String> chain =
        client
            .async()
            .receipts()
            .chainJson("auth_1", Duration.ofSeconds(10))
            .get(5, TimeUnit.SECONDS);

    assertThat(chain).containsExactly(receiptText(a), receiptText(b));
    assertThat(timing.sleeps()).isEmpty();
    assertThat(timing.delays()).contains(Duration.ofMillis(100));
  }

  @Test
  void asyncChainJsonStopsWhenTheListRepeatsItsCursor() {
    server.enqueue(json(200, page(true, "cur_2")));
    server.enqueue(json(200, page(true, "cur_2")));

    assertThatThrownBy(
            () ->
                client
                    .async()
                    .receipts()
                    .chainJson("auth_1", Duration.ofSeconds(1))
                    .get(5, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(MalformedResponseException.class)
        .hasMessageContaining("the same next_cursor twice");
  }

  @Test
  void chainJsonArgumentsAreCheckedBeforeAnyRequest() {
    assertThatThrownBy(() -> client.receipts().chainJson(" ", Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("authorization id");
    assertThatThrownBy(() -> client.async().receipts().chainJson("auth_1", Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("positive timeout");
    assertThat(server.getRequestCount()).isZero();
  }
}
