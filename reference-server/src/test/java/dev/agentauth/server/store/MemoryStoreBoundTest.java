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

/** The memory store's bound (issue 25 item 8): what it counts, and that the oldest go first. */
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

  @Test
  void theDefaultBoundIsAQuarterOfTheHeap() {
    assertThat(new MemoryStore().maxBytes()).isEqualTo(Runtime.getRuntime().maxMemory() / 4);
  }
}
