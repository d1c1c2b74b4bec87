package dev.agentauth.server.store;

import static dev.agentauth.server.store.StoreConformance.at;
import static dev.agentauth.server.store.StoreConformance.authId;
import static dev.agentauth.server.store.StoreConformance.escalation;
import static dev.agentauth.server.store.StoreConformance.idem;
import static dev.agentauth.server.store.StoreConformance.nonce;
import static dev.agentauth.server.store.StoreConformance.pendingReceipt;
import static dev.agentauth.server.store.StoreConformance.signedJson;
import static dev.agentauth.server.store.StoreConformance.ulid;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The memory store's bound (issue 25 item 8): what it counts (webhook deliveries too), and that the
 * oldest go first.
 */
class MemoryStoreBoundTest {
  private static final String WS = "ws_a";

  private static long receiptSize() {
    return MemoryBudget.size(pendingReceipt(WS, ulid(1), at(0)));
  }

  private static void insertReceipts(MemoryStore store, int from, int to) {
    for (int i = from; i < to; i++) {
      ReceiptRow r = pendingReceipt(WS, ulid(i), at(i));
      store.inTransaction(
          tx -> {
            tx.insertReceipt(r);
            return null;
          });
    }
  }

  private static List<Integer> present(MemoryStore store, int to) {
    List<Integer> out = new ArrayList<>();
    for (int i = 0; i < to; i++) {
      String id = ulid(i);
      if (store.inTransaction((Tx tx) -> tx.receipt(WS, id)).isPresent()) {
        out.add(i);
      }
    }
    return out;
  }

  @Test
  void theOldestReceiptsAreEvictedFirstOncePastTheBound() {
    MemoryStore store = new MemoryStore(5 * receiptSize());
    insertReceipts(store, 0, 5);
    assertThat(store.evictedReceipts()).isZero();
    assertThat(store.heldBytes()).isEqualTo(5 * receiptSize());

    insertReceipts(store, 5, 12);

    assertThat(present(store, 12)).containsExactly(7, 8, 9, 10, 11);
    assertThat(store.evictedReceipts()).isEqualTo(7);
    assertThat(store.heldBytes()).isLessThanOrEqualTo(store.maxBytes());
    // an evicted receipt that was still pending is no longer offered to the signer
    assertThat(store.inTransaction((Tx tx) -> tx.pendingReceipts(null, 100)))
        .extracting(ReceiptRow::receiptId)
        .containsExactly(ulid(7), ulid(8), ulid(9), ulid(10), ulid(11));
    // listing shows what is left, in order
    assertThat(
            store
                .inTransaction(
                    tx ->
                        tx.listReceipts(
                            WS,
                            new ReceiptFilter(null, null, null, null, null, null, null, null, null),
                            PageRequest.first(100)))
                .items())
        .extracting(ReceiptRow::receiptId)
        .containsExactly(ulid(7), ulid(8), ulid(9), ulid(10), ulid(11));
  }

  @Test
  void signingCountsTheSignatureAndEvictionFollowsCommitOrder() {
    MemoryStore store = new MemoryStore(4 * receiptSize());
    insertReceipts(store, 0, 3);
    ReceiptRow first = pendingReceipt(WS, ulid(0), at(0));
    store.inTransaction((Tx tx) -> tx.markSigned(WS, ulid(0), signedJson(first, "c2ln")));
    long signedSize = MemoryBudget.size(first.withSignedJson(signedJson(first, "c2ln")));
    assertThat(store.heldBytes()).isEqualTo(signedSize + 2 * receiptSize());

    insertReceipts(store, 3, 5);

    // the signed receipt was the oldest: it goes first, whatever its state
    assertThat(present(store, 5)).doesNotContain(0).contains(3, 4);
    assertThat(store.heldBytes()).isLessThanOrEqualTo(store.maxBytes());
  }

  @Test
  void aRolledBackTransactionAddsNothing() {
    MemoryStore store = new MemoryStore(2 * receiptSize());
    insertReceipts(store, 0, 2);
    ReceiptRow r = pendingReceipt(WS, ulid(2), at(2));

    assertThatThrownBy(
            () ->
                store.inTransaction(
                    tx -> {
                      tx.insertReceipt(r);
                      throw new IllegalStateException("boom");
                    }))
        .hasMessage("boom");

    assertThat(store.heldBytes()).isEqualTo(2 * receiptSize());
    assertThat(present(store, 3)).containsExactly(0, 1);
    assertThat(store.evictedRecords()).isZero();
  }

  @Test
  void idempotencyRecordsNoncesAndEscalationsAreBoundedToo() {
    IdempotencyRow big = idem("key_hash", "k2", new byte[20_000], at(1));
    MemoryStore store = new MemoryStore(MemoryBudget.size(big) + 100);
    store.inTransaction(
        (Tx tx) -> {
          tx.insertIdempotency(idem("key_hash", "k1", new byte[1_000], at(0)));
          tx.insertNonce(nonce(WS, "nonce_1", authId(1), "s", "doc:1", at(0), at(300)));
          tx.insertEscalation(
              escalation(WS, "esc_1", authId(1), "s", "doc:1", "pending", at(0), at(86_400)));
          return null;
        });
    assertThat(store.evictedRecords()).isZero();

    store.inTransaction(
        (Tx tx) -> {
          tx.insertIdempotency(big);
          return null;
        });

    // the older records went, in the order they were committed, until under the bound
    assertThat(store.inTransaction((Tx tx) -> tx.idempotency("key_hash", "k1"))).isEmpty();
    assertThat(store.inTransaction((Tx tx) -> tx.nonce(WS, "nonce_1"))).isEmpty();
    assertThat(store.inTransaction((Tx tx) -> tx.openNonce(WS, authId(1), "s", "doc:1", at(1))))
        .isEmpty();
    assertThat(store.inTransaction((Tx tx) -> tx.escalation(WS, "esc_1"))).isEmpty();
    assertThat(store.inTransaction((Tx tx) -> tx.latestEscalation(WS, authId(1), "s", "doc:1")))
        .isEmpty();
    assertThat(store.inTransaction((Tx tx) -> tx.idempotency("key_hash", "k2"))).isPresent();
    assertThat(store.evictedRecords()).isEqualTo(3);
    assertThat(store.evictedReceipts()).isZero();
    assertThat(store.heldBytes()).isEqualTo(MemoryBudget.size(big));
  }

  @Test
  void purgedIdempotencyRecordsLeaveTheCount() {
    MemoryStore store = new MemoryStore(1_000_000);
    store.inTransaction(
        tx -> {
          tx.insertIdempotency(idem("key_hash", "k1", new byte[5_000], at(0)));
          return null;
        });
    assertThat(store.heldBytes()).isGreaterThan(5_000);

    store.inTransaction((Tx tx) -> tx.purgeIdempotency(at(10)));

    assertThat(store.heldBytes()).isZero();
  }

  private static final String HOOK = "wh_1";

  private static WebhookEvent webhookEvent(int n) {
    return new WebhookEvent(
        WS,
        "evt_" + ulid(n),
        "escalation.created",
        at(n),
        "{\"payload\":\"" + "x".repeat(500) + "\"}",
        authId(1),
        "esc_" + n,
        at(n));
  }

  private static MemoryStore storeWithWebhook(long maxBytes) {
    MemoryStore store = new MemoryStore(maxBytes);
    store.inTransaction(
        tx -> {
          tx.insertWebhook(
              new WebhookRow(
                  WS,
                  HOOK,
                  "https://hooks.example/a",
                  List.of("escalation.created"),
                  new byte[32],
                  at(0)));
          return null;
        });
    return store;
  }

  private static void enqueue(MemoryStore store, int from, int to) {
    for (int i = from; i < to; i++) {
      WebhookEvent e = webhookEvent(i);
      store.inTransaction(
          tx -> {
            tx.enqueueWebhookEvent(e);
            return null;
          });
    }
  }

  private static List<String> deliveries(MemoryStore store) {
    return store
        .inTransaction((Tx tx) -> tx.listWebhookDeliveries(WS, HOOK, PageRequest.first(100)))
        .items()
        .stream()
        .map(WebhookDeliveryRow::eventId)
        .toList();
  }

  @Test
  void webhookDeliveriesCountAgainstTheBoundAndPrunedOnesLeaveIt() {
    MemoryStore store = storeWithWebhook(1_000_000);
    long pendingSize = MemoryBudget.size(WebhookDeliveryRow.of(webhookEvent(1), HOOK));
    enqueue(store, 1, 2);
    assertThat(store.heldBytes()).isEqualTo(pendingSize);

    List<WebhookTx.Claimed> claimed =
        store.inTransaction(
            tx -> tx.claimWebhookDeliveries(at(10), at(10), at(70), "w", java.util.Set.of(), 10));
    WebhookTx.Attempt delivered =
        new WebhookTx.Attempt(
            HOOK, "evt_" + ulid(1), "w", at(11), true, 204, null, "delivered", null);
    store.inTransaction(tx -> tx.recordWebhookAttempt(delivered));
    assertThat(store.heldBytes())
        .isEqualTo(MemoryBudget.size(claimed.get(0).delivery().after(delivered)));

    assertThat(store.inTransaction((Tx tx) -> tx.pruneWebhookDeliveries(at(100), 10))).isEqualTo(1);
    assertThat(store.heldBytes()).isZero();
    assertThat(store.evictedRecords()).isZero();

    // Deleting a webhook frees its deliveries too.
    enqueue(store, 2, 4);
    assertThat(store.heldBytes()).isEqualTo(2 * pendingSize);
    store.inTransaction((Tx tx) -> tx.deleteWebhook(WS, HOOK));
    assertThat(store.heldBytes()).isZero();
  }

  @Test
  void theOldestWebhookDeliveriesAreEvictedPastTheBound() {
    long size = MemoryBudget.size(WebhookDeliveryRow.of(webhookEvent(1), HOOK));
    MemoryStore store = storeWithWebhook(3 * size);
    enqueue(store, 1, 6);

    assertThat(deliveries(store))
        .containsExactly("evt_" + ulid(5), "evt_" + ulid(4), "evt_" + ulid(3));
    assertThat(store.evictedRecords()).isEqualTo(2);
    assertThat(store.heldBytes()).isEqualTo(3 * size);
    // evicted deliveries are neither counted as pending nor leased any more
    assertThat(store.inTransaction((Tx tx) -> tx.webhookOutbox(at(100), 100)).pending())
        .isEqualTo(3);
    assertThat(
            store.inTransaction(
                (Tx tx) ->
                    tx.claimWebhookDeliveries(
                        at(100), at(100), at(160), "w", java.util.Set.of(), 10)))
        .hasSize(3);
  }

  @Test
  void theDefaultBoundIsAQuarterOfTheHeap() {
    assertThat(new MemoryStore().maxBytes()).isEqualTo(Runtime.getRuntime().maxMemory() / 4);
  }
}
