package dev.agentauth.server.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.model.ApiKeyRole;
import dev.agentauth.model.Plan;
import dev.agentauth.server.TestClock;
import dev.agentauth.server.service.ReceiptQuotas.Limits;
import dev.agentauth.server.service.ReceiptQuotas.Quota;
import dev.agentauth.server.store.MemoryStore;
import dev.agentauth.server.store.ReceiptRow;
import dev.agentauth.server.store.Store;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link ReceiptQuotas} on its own: counting, refusal with the seconds to the next UTC day, and
 * what {@link ReceiptQuotas#flush} shares between instances on one store.
 */
class ReceiptQuotasTest {
  private static final Instant NOON = Instant.parse("2026-11-22T12:00:00Z");
  private static final Caller PRO =
      new Caller("ws_a", Plan.Known.PRO, "h", "key_1", ApiKeyRole.FULL, null, null);

  private final TestClock clock = new TestClock(NOON);
  private final Store store = new MemoryStore();

  private static List<ReceiptRow> receipts(int n, Instant at) {
    List<ReceiptRow> rows = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      rows.add(
          new ReceiptRow(
              "ws_a", "r" + i, null, null, null, null, "s", null, "allow", at, "{\"x\":1}", null));
    }
    return rows;
  }

  private ReceiptQuotas quotas(long receipts) {
    ReceiptQuotas q =
        new ReceiptQuotas(store, clock, new Limits(Quota.UNLIMITED, new Quota(receipts, 0)));
    q.start();
    return q;
  }

  @Test
  void refusesFromTheQuotaOnUntilTheNextUtcDay() {
    ReceiptQuotas q = quotas(5);
    q.record(receipts(4, NOON));
    q.admit(PRO);
    q.record(receipts(1, NOON));

    assertThatThrownBy(() -> q.admit(PRO))
        .isInstanceOfSatisfying(
            ServiceException.class,
            e -> {
              assertThat(e.errorCode()).isEqualTo(ErrorCode.QUOTA_EXCEEDED);
              assertThat(e.retryAfter()).isEqualTo("43200");
            });
    assertThat(q.refusedForReceipts()).isEqualTo(1);

    clock.advance(Duration.ofHours(12));
    q.admit(PRO);
  }

  @Test
  void retryAfterRoundsUpToWholeSecondsAndIsAtLeastOne() {
    assertThat(ReceiptQuotas.secondsToNextDay(Instant.parse("2026-11-22T23:59:59.001Z")))
        .isEqualTo(1);
    assertThat(ReceiptQuotas.secondsToNextDay(Instant.parse("2026-11-22T23:59:58.500Z")))
        .isEqualTo(2);
    assertThat(ReceiptQuotas.secondsToNextDay(Instant.parse("2026-11-22T00:00:00Z")))
        .isEqualTo(86_400);
  }

  @Test
  void instancesOnOneStoreSeeEachOthersReceiptsAfterAFlush() {
    ReceiptQuotas a = quotas(10);
    ReceiptQuotas b = quotas(10);
    a.record(receipts(6, NOON));
    b.record(receipts(4, NOON));
    b.admit(PRO);

    a.flush();
    b.flush();

    assertThat(b.receiptsToday()).isEqualTo(10);
    assertThatThrownBy(() -> b.admit(PRO)).isInstanceOf(ServiceException.class);
    a.flush();
    assertThat(a.receiptsToday()).isEqualTo(10);
    assertThatThrownBy(() -> a.admit(PRO)).isInstanceOf(ServiceException.class);
  }

  @Test
  void aNewInstanceStartsFromTheStoredCounts() {
    ReceiptQuotas first = quotas(3);
    first.record(receipts(3, NOON));
    first.flush();

    ReceiptQuotas second = quotas(3);

    assertThat(second.receiptsToday()).isEqualTo(3);
    assertThatThrownBy(() -> second.admit(PRO)).isInstanceOf(ServiceException.class);
  }

  @Test
  void aReceiptOfYesterdayRecordedLateIsWrittenToItsDayAndNotCountedToday() {
    ReceiptQuotas q = quotas(3);
    clock.advance(Duration.ofHours(12));
    q.record(receipts(3, NOON));

    q.admit(PRO);
    q.flush();

    assertThat(q.receiptsToday()).isZero();
    Store.Work<Long> yesterday =
        tx ->
            tx.receiptUsages(NOON.atZone(java.time.ZoneOffset.UTC).toLocalDate())
                .get("ws_a")
                .receipts();
    assertThat(store.read(yesterday)).isEqualTo(3);
  }

  @Test
  void aFreeWorkspaceHasTheFreeQuota() {
    ReceiptQuotas q = new ReceiptQuotas(store, clock, new Limits(new Quota(1, 0), Quota.UNLIMITED));
    Caller free = new Caller("ws_a", Plan.Known.FREE, "h", "key_1", ApiKeyRole.FULL, null, null);
    q.record(receipts(1, NOON));

    q.admit(PRO);
    assertThatThrownBy(() -> q.admit(free)).isInstanceOf(ServiceException.class);
  }
}
