package dev.agentauth.server.store;

import static dev.agentauth.server.store.StoreConformance.WS_A;
import static dev.agentauth.server.store.StoreConformance.WS_B;
import static dev.agentauth.server.store.StoreConformance.at;
import static dev.agentauth.server.store.StoreConformance.authId;
import static dev.agentauth.server.store.StoreConformance.ids;
import static dev.agentauth.server.store.StoreConformance.payloadJson;
import static dev.agentauth.server.store.StoreConformance.pendingReceipt;
import static dev.agentauth.server.store.StoreConformance.receipt;
import static dev.agentauth.server.store.StoreConformance.signedWith;
import static dev.agentauth.server.store.StoreConformance.ulid;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Receipts ({@link ReceiptTx} and {@code insertReceipt}): exact round trips, duplicate ids refused,
 * and the list filtered by every member, bounded in time and paginated.
 *
 * <p>Part of the store conformance suite: {@link StoreConformance} runs it on every store.
 */
interface ReceiptConformance extends StoreUnderTest {
  @Test
  default void receiptsRoundTripExactly() {
    ReceiptRow r1 = pendingReceipt(WS_A, ulid(1), Instant.parse("2026-11-22T10:00:00.999Z"));
    ReceiptRow bare =
        new ReceiptRow(
            WS_A,
            ulid(2),
            null,
            null,
            null,
            null,
            null,
            "workspace.key_rotated",
            null,
            at(1),
            "{\"event\":\"workspace.key_rotated\"}",
            null);
    ReceiptRow alreadySigned = signedWith(pendingReceipt(WS_A, ulid(3), at(2)), "cyAgMQ");
    write(
        tx -> {
          tx.insertReceipt(r1);
          tx.insertReceipt(bare);
          tx.insertReceipt(alreadySigned);
        });
    read(
        tx -> {
          ReceiptRow back = tx.receipt(WS_A, ulid(1)).orElseThrow();
          assertThat(back).isEqualTo(r1);
          assertThat(back.payloadJson()).isEqualTo(payloadJson(ulid(1), "allow"));
          assertThat(back.isSigned()).isFalse();
          assertThat(tx.receipt(WS_A, ulid(2))).contains(bare);
          assertThat(tx.receipt(WS_A, ulid(3))).contains(alreadySigned);
          assertThat(tx.receipt(WS_B, ulid(1))).isEmpty();
          assertThat(tx.receipt(WS_A, ulid(4))).isEmpty();
          return null;
        });
  }

  @Test
  default void insertingADuplicateReceiptIdThrowsStoreExceptionAndKeepsTheFirst() {
    ReceiptRow r1 = pendingReceipt(WS_A, ulid(1), at(0));
    write(tx -> tx.insertReceipt(r1));
    ReceiptRow dup =
        receipt(
            WS_A, ulid(1), authId(2), "user_2", null, null, "email.send", "check", "deny", at(5));
    assertThatThrownBy(() -> write(tx -> tx.insertReceipt(dup))).isInstanceOf(StoreException.class);
    assertThat(read((Tx tx) -> tx.receipt(WS_A, ulid(1)))).contains(r1);
    // The store stays usable after the failed transaction.
    write(tx -> tx.insertReceipt(pendingReceipt(WS_A, ulid(2), at(1))));
    assertThat(read((Tx tx) -> tx.receipt(WS_A, ulid(2)))).isPresent();
  }

  private void insertFilterReceipts() {
    write(
        tx -> {
          tx.insertReceipt(
              receipt(
                  WS_A,
                  ulid(1),
                  authId(1),
                  "user_1",
                  "doc:1",
                  "sess_1",
                  "calendar.read",
                  "check",
                  "allow",
                  at(0)));
          tx.insertReceipt(
              receipt(
                  WS_A,
                  ulid(2),
                  authId(1),
                  "user_1",
                  "doc:2",
                  "sess_2",
                  "email.send",
                  "check",
                  "deny",
                  at(1)));
          tx.insertReceipt(
              receipt(
                  WS_A,
                  ulid(3),
                  authId(2),
                  "user_2",
                  "doc:1",
                  "sess_1",
                  "calendar.read",
                  "confirmation.resolved",
                  "allow",
                  at(2)));
          tx.insertReceipt(
              receipt(
                  WS_A,
                  ulid(4),
                  authId(2),
                  "user_2",
                  null,
                  null,
                  "email.send",
                  "check",
                  "confirm",
                  at(3)));
          tx.insertReceipt(
              receipt(
                  WS_A,
                  ulid(5),
                  null,
                  null,
                  null,
                  null,
                  null,
                  "authorization.revoked",
                  null,
                  at(4)));
          tx.insertReceipt(
              receipt(
                  WS_B,
                  ulid(6),
                  authId(1),
                  "user_1",
                  "doc:1",
                  "sess_1",
                  "calendar.read",
                  "check",
                  "allow",
                  at(0)));
        });
  }

  private List<String> receiptIds(String ws, ReceiptFilter f) {
    return read(
        tx -> ids(tx.listReceipts(ws, f, new PageRequest(null, 100)), ReceiptRow::receiptId));
  }

  @Test
  default void listReceiptsFiltersByEveryMember() {
    insertFilterReceipts();
    ReceiptFilter none = new ReceiptFilter(null, null, null, null, null, null, null, null, null);
    assertThat(receiptIds(WS_A, none)).containsExactly(ulid(1), ulid(2), ulid(3), ulid(4), ulid(5));
    assertThat(
            receiptIds(
                WS_A, new ReceiptFilter(authId(1), null, null, null, null, null, null, null, null)))
        .containsExactly(ulid(1), ulid(2));
    assertThat(
            receiptIds(
                WS_A, new ReceiptFilter(null, "user_2", null, null, null, null, null, null, null)))
        .containsExactly(ulid(3), ulid(4));
    assertThat(
            receiptIds(
                WS_A, new ReceiptFilter(null, null, "doc:1", null, null, null, null, null, null)))
        .containsExactly(ulid(1), ulid(3));
    assertThat(
            receiptIds(
                WS_A, new ReceiptFilter(null, null, null, "sess_1", null, null, null, null, null)))
        .containsExactly(ulid(1), ulid(3));
    assertThat(
            receiptIds(
                WS_A,
                new ReceiptFilter(null, null, null, null, "email.send", null, null, null, null)))
        .containsExactly(ulid(2), ulid(4));
    assertThat(
            receiptIds(
                WS_A, new ReceiptFilter(null, null, null, null, null, "check", null, null, null)))
        .containsExactly(ulid(1), ulid(2), ulid(4));
    assertThat(
            receiptIds(
                WS_A, new ReceiptFilter(null, null, null, null, null, null, "allow", null, null)))
        .containsExactly(ulid(1), ulid(3));
    assertThat(
            receiptIds(
                WS_A,
                new ReceiptFilter(authId(2), null, null, null, null, null, "allow", null, null)))
        .containsExactly(ulid(3));
    assertThat(
            receiptIds(
                WS_A,
                new ReceiptFilter(authId(2), "user_1", null, null, null, null, null, null, null)))
        .isEmpty();
    assertThat(
            receiptIds(
                WS_A, new ReceiptFilter(null, null, "doc:3", null, null, null, null, null, null)))
        .isEmpty();
    assertThat(
            receiptIds(
                WS_B, new ReceiptFilter(authId(1), null, null, null, null, null, null, null, null)))
        .containsExactly(ulid(6));
    assertThat(receiptIds("ws_none", none)).isEmpty();
  }

  @Test
  default void listReceiptsTimeBoundsAreFromInclusiveToExclusive() {
    insertFilterReceipts();
    assertThat(
            receiptIds(
                WS_A, new ReceiptFilter(null, null, null, null, null, null, null, at(1), null)))
        .containsExactly(ulid(2), ulid(3), ulid(4), ulid(5));
    assertThat(
            receiptIds(
                WS_A,
                new ReceiptFilter(
                    null, null, null, null, null, null, null, at(1).plusMillis(1), null)))
        .containsExactly(ulid(3), ulid(4), ulid(5));
    assertThat(
            receiptIds(
                WS_A, new ReceiptFilter(null, null, null, null, null, null, null, null, at(3))))
        .containsExactly(ulid(1), ulid(2), ulid(3));
    assertThat(
            receiptIds(
                WS_A,
                new ReceiptFilter(
                    null, null, null, null, null, null, null, null, at(3).plusMillis(1))))
        .containsExactly(ulid(1), ulid(2), ulid(3), ulid(4));
    assertThat(
            receiptIds(
                WS_A, new ReceiptFilter(null, null, null, null, null, null, null, at(1), at(3))))
        .containsExactly(ulid(2), ulid(3));
    assertThat(
            receiptIds(
                WS_A, new ReceiptFilter(null, null, null, null, null, null, null, at(2), at(2))))
        .isEmpty();
    assertThat(
            receiptIds(
                WS_A, new ReceiptFilter(null, null, null, null, null, "check", null, at(1), at(4))))
        .containsExactly(ulid(2), ulid(4));
  }

  @Test
  default void listReceiptsPaginates() {
    insertFilterReceipts();
    ReceiptFilter check =
        new ReceiptFilter(null, null, null, null, null, "check", null, null, null);
    read(
        tx -> {
          Page<ReceiptRow> p1 = tx.listReceipts(WS_A, check, new PageRequest(null, 2));
          assertThat(ids(p1, ReceiptRow::receiptId)).containsExactly(ulid(1), ulid(2));
          assertThat(p1.hasMore()).isTrue();
          Page<ReceiptRow> p2 = tx.listReceipts(WS_A, check, new PageRequest(ulid(2), 2));
          assertThat(ids(p2, ReceiptRow::receiptId)).containsExactly(ulid(4));
          assertThat(p2.hasMore()).isFalse();
          ReceiptFilter none =
              new ReceiptFilter(null, null, null, null, null, null, null, null, null);
          Page<ReceiptRow> all = tx.listReceipts(WS_A, none, new PageRequest(ulid(2), 3));
          assertThat(ids(all, ReceiptRow::receiptId)).containsExactly(ulid(3), ulid(4), ulid(5));
          assertThat(all.hasMore()).isFalse();
          Page<ReceiptRow> two = tx.listReceipts(WS_A, none, new PageRequest(ulid(2), 2));
          assertThat(two.hasMore()).isTrue();
          assertThat(all.items().get(0))
              .isEqualTo(
                  receipt(
                      WS_A,
                      ulid(3),
                      authId(2),
                      "user_2",
                      "doc:1",
                      "sess_1",
                      "calendar.read",
                      "confirmation.resolved",
                      "allow",
                      at(2)));
          return null;
        });
  }
}
