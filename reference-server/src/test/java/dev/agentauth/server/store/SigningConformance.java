package dev.agentauth.server.store;

import static dev.agentauth.server.store.StoreConformance.WS_A;
import static dev.agentauth.server.store.StoreConformance.WS_B;
import static dev.agentauth.server.store.StoreConformance.assertSigningKey;
import static dev.agentauth.server.store.StoreConformance.at;
import static dev.agentauth.server.store.StoreConformance.pendingReceipt;
import static dev.agentauth.server.store.StoreConformance.seedBytes;
import static dev.agentauth.server.store.StoreConformance.signed;
import static dev.agentauth.server.store.StoreConformance.signedJson;
import static dev.agentauth.server.store.StoreConformance.signedWith;
import static dev.agentauth.server.store.StoreConformance.signingKey;
import static dev.agentauth.server.store.StoreConformance.ulid;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the signer needs ({@link SigningTx} and the signing keys of {@link WorkspaceTx}): signing
 * keys per workspace, pending receipts across and within workspaces, their count, claims of old
 * ones, and signatures stored exactly once.
 *
 * <p>Part of the store conformance suite: {@link StoreConformance} runs it on every store.
 */
interface SigningConformance extends StoreUnderTest {
  @Test
  default void signingKeysAreListedOldestFirstPerWorkspace() {
    SigningKeyRow k1 = signingKey(WS_A, "ws_a/01jdq4zk3m0001", 1, at(-86_400 * 2));
    SigningKeyRow k2 = signingKey(WS_A, "ws_a/01jdq4zk3m0002", 2, at(-86_400));
    SigningKeyRow k3 = signingKey(WS_A, "ws_a/01jdq4zk3m0003", 3, at(0));
    SigningKeyRow b1 = signingKey(WS_B, "ws_b/01jdq4zk3m0001", 4, at(-10));
    write(tx -> tx.insertSigningKey(k1));
    write(
        tx -> {
          tx.insertSigningKey(b1);
          tx.insertSigningKey(k2);
        });
    write(tx -> tx.insertSigningKey(k3));
    read(
        tx -> {
          List<SigningKeyRow> a = tx.signingKeys(WS_A);
          assertThat(a)
              .extracting(SigningKeyRow::keyId)
              .containsExactly(k1.keyId(), k2.keyId(), k3.keyId());
          assertSigningKey(a.get(0), k1);
          assertSigningKey(a.get(1), k2);
          assertSigningKey(a.get(2), k3);
          List<SigningKeyRow> b = tx.signingKeys(WS_B);
          assertThat(b).hasSize(1);
          assertSigningKey(b.get(0), b1);
          assertThat(tx.signingKeys("ws_none")).isEmpty();
          return null;
        });
  }

  @Test
  default void signingKeySeedRoundTripsByteForByte() {
    byte[] seed = new byte[32];
    for (int i = 0; i < 32; i++) {
      seed[i] = (byte) (0xff - i * 8);
    }
    seed[5] = 0;
    seed[6] = 0;
    SigningKeyRow k =
        new SigningKeyRow(
            WS_A,
            "ws_a/01jdq4zk3m0009",
            seed.clone(),
            seedBytes(77),
            Instant.parse("2026-11-22T10:00:00.321Z"),
            Instant.parse("2027-11-22T10:00:00.654Z"));
    write(tx -> tx.insertSigningKey(k));
    SigningKeyRow back = read(tx -> tx.signingKeys(WS_A)).get(0);
    assertThat(back.privateSeed()).containsExactly(seed);
    assertSigningKey(back, k);
  }

  @Test
  default void updateSigningKeyRetiresItAndKeepsTheSeed() {
    SigningKeyRow k1 = signingKey(WS_A, "ws_a/01jdq4zk3m0001", 1, at(-86_400));
    SigningKeyRow k2 = signingKey(WS_A, "ws_a/01jdq4zk3m0002", 2, at(0));
    write(
        tx -> {
          tx.insertSigningKey(k1);
          tx.insertSigningKey(k2);
        });
    SigningKeyRow retired = k1.retiredAt(Instant.parse("2026-11-22T10:00:00.500Z"));
    write(tx -> tx.updateSigningKey(retired));
    List<SigningKeyRow> keys = read(tx -> tx.signingKeys(WS_A));
    assertThat(keys).hasSize(2);
    assertSigningKey(keys.get(0), retired);
    assertSigningKey(keys.get(1), k2);
    assertThat(keys.get(0).validAt(at(-1))).isTrue();
    assertThat(keys.get(0).validAt(at(1))).isFalse();
  }

  @Test
  default void pendingReceiptsSpanWorkspacesInIdOrder() {
    ReceiptRow a1 = pendingReceipt(WS_A, ulid(1), at(0));
    ReceiptRow b2 = pendingReceipt(WS_B, ulid(2), at(1));
    ReceiptRow a3 = signedWith(pendingReceipt(WS_A, ulid(3), at(2)), "Mw");
    ReceiptRow b4 = pendingReceipt(WS_B, ulid(4), at(3));
    ReceiptRow a5 = pendingReceipt(WS_A, ulid(5), at(4));
    write(
        tx -> {
          tx.insertReceipt(a5);
          tx.insertReceipt(b4);
          tx.insertReceipt(a3);
        });
    write(
        tx -> {
          tx.insertReceipt(b2);
          tx.insertReceipt(a1);
        });
    read(
        tx -> {
          assertThat(tx.pendingReceipts(null, 10)).containsExactly(a1, b2, b4, a5);
          assertThat(tx.pendingReceipts(null, 2)).containsExactly(a1, b2);
          assertThat(tx.pendingReceipts(ulid(2), 2)).containsExactly(b4, a5);
          assertThat(tx.pendingReceipts(ulid(3), 10)).containsExactly(b4, a5);
          assertThat(tx.pendingReceipts(ulid(5), 10)).isEmpty();
          return null;
        });
    assertThat(store().inTransaction((Tx tx) -> tx.markSigned(WS_B, ulid(2), signedJson(b2, "Mg"))))
        .isTrue();
    assertThat(read((Tx tx) -> tx.pendingReceipts(null, 10))).containsExactly(a1, b4, a5);
  }

  @Test
  default void pendingReceiptsOfOneWorkspaceInIdOrderAndTheWorkspacesThatHaveAny() {
    assertThat(read((Tx tx) -> tx.pendingWorkspaces(null, 10))).isEmpty();
    ReceiptRow a1 = pendingReceipt(WS_A, ulid(1), at(0));
    ReceiptRow b2 = pendingReceipt(WS_B, ulid(2), at(1));
    ReceiptRow a3 = signedWith(pendingReceipt(WS_A, ulid(3), at(2)), "Mw");
    ReceiptRow b4 = pendingReceipt(WS_B, ulid(4), at(3));
    ReceiptRow a5 = pendingReceipt(WS_A, ulid(5), at(4));
    write(
        tx -> {
          tx.insertReceipt(a5);
          tx.insertReceipt(b4);
          tx.insertReceipt(a3);
          tx.insertReceipt(b2);
          tx.insertReceipt(a1);
        });
    read(
        tx -> {
          assertThat(tx.pendingReceipts(WS_A, null, 10)).containsExactly(a1, a5);
          assertThat(tx.pendingReceipts(WS_A, null, 1)).containsExactly(a1);
          assertThat(tx.pendingReceipts(WS_A, ulid(1), 10)).containsExactly(a5);
          assertThat(tx.pendingReceipts(WS_B, ulid(2), 10)).containsExactly(b4);
          assertThat(tx.pendingReceipts(WS_B, ulid(4), 10)).isEmpty();
          assertThat(tx.countPendingReceipts(WS_A, 10)).isEqualTo(2);
          assertThat(tx.countPendingReceipts(WS_A, 1)).isEqualTo(1);
          assertThat(tx.countPendingReceipts(WS_B, 10)).isEqualTo(2);
          assertThat(tx.pendingWorkspaces(null, 10)).containsExactly(WS_A, WS_B);
          assertThat(tx.pendingWorkspaces(null, 1)).containsExactly(WS_A);
          assertThat(tx.pendingWorkspaces(WS_A, 10)).containsExactly(WS_B);
          assertThat(tx.pendingWorkspaces(WS_B, 10)).isEmpty();
          return null;
        });
    store()
        .inTransaction(
            (Tx tx) ->
                tx.markSignedAll(
                    List.of(
                        new Tx.Signed(WS_B, ulid(2), signedJson(b2, "Mg")),
                        new Tx.Signed(WS_B, ulid(4), signedJson(b4, "NA")))));
    read(
        tx -> {
          assertThat(tx.pendingReceipts(WS_B, null, 10)).isEmpty();
          assertThat(tx.countPendingReceipts(WS_B, 10)).isZero();
          assertThat(tx.pendingWorkspaces(null, 10)).containsExactly(WS_A);
          return null;
        });
  }

  @Test
  default void countPendingReceiptsCountsEveryWorkspacesUnsignedReceiptsUpToTheCap() {
    assertThat(read((Tx tx) -> tx.countPendingReceipts(10))).isZero();
    ReceiptRow a1 = pendingReceipt(WS_A, ulid(1), at(0));
    ReceiptRow b2 = pendingReceipt(WS_B, ulid(2), at(1));
    ReceiptRow a3 = signedWith(pendingReceipt(WS_A, ulid(3), at(2)), "Mw");
    ReceiptRow b4 = pendingReceipt(WS_B, ulid(4), at(3));
    write(
        tx -> {
          tx.insertReceipt(a1);
          tx.insertReceipt(b2);
          tx.insertReceipt(a3);
          tx.insertReceipt(b4);
        });
    assertThat(read((Tx tx) -> tx.countPendingReceipts(10))).isEqualTo(3);
    assertThat(read((Tx tx) -> tx.countPendingReceipts(2))).isEqualTo(2);
    assertThat(store().inTransaction((Tx tx) -> tx.markSigned(WS_B, ulid(2), signedJson(b2, "Mg"))))
        .isTrue();
    assertThat(read((Tx tx) -> tx.countPendingReceipts(10))).isEqualTo(2);
  }

  @Test
  default void claimPendingReturnsPendingReceiptsIssuedStrictlyBefore() {
    ReceiptRow a1 = pendingReceipt(WS_A, ulid(1), at(0));
    ReceiptRow b2 = pendingReceipt(WS_B, ulid(2), at(1));
    ReceiptRow a3 = signedWith(pendingReceipt(WS_A, ulid(3), at(-100)), "Mw");
    ReceiptRow b4 = pendingReceipt(WS_B, ulid(4), at(2));
    ReceiptRow a5 = pendingReceipt(WS_A, ulid(5), at(-50)); // newer id, issued earlier
    write(
        tx -> {
          for (ReceiptRow r : List.of(b4, a1, a5, a3, b2)) {
            tx.insertReceipt(r);
          }
        });
    store()
        .inTransaction(
            tx -> {
              assertThat(tx.claimPending(at(2), 10)).containsExactly(a1, b2, a5);
              return null;
            });
    store()
        .inTransaction(
            tx -> {
              assertThat(tx.claimPending(at(2).plusMillis(1), 10)).containsExactly(a1, b2, b4, a5);
              return null;
            });
    store()
        .inTransaction(
            tx -> {
              assertThat(tx.claimPending(at(2), 2)).containsExactly(a1, b2);
              return null;
            });
    store()
        .inTransaction(
            tx -> {
              assertThat(tx.claimPending(at(0), 10)).containsExactly(a5);
              assertThat(tx.claimPending(at(-50), 10)).isEmpty();
              return null;
            });
    // Claimed but not signed receipts are claimable again by a later transaction.
    store()
        .inTransaction(
            tx -> {
              List<ReceiptRow> claimed = tx.claimPending(at(10), 1);
              assertThat(claimed).containsExactly(a1);
              assertThat(tx.markSigned(WS_A, ulid(1), signedJson(a1, "sig1"))).isTrue();
              return null;
            });
    store()
        .inTransaction(
            tx -> {
              assertThat(tx.claimPending(at(10), 10)).containsExactly(b2, b4, a5);
              return null;
            });
  }

  @Test
  default void markSignedAllStoresEachPendingReceiptOnceAndReportsWhichItStored() {
    ReceiptRow r1 = pendingReceipt(WS_A, ulid(1), at(0));
    ReceiptRow r2 = signedWith(pendingReceipt(WS_A, ulid(2), at(0)), "b3JpZ2luYWw");
    ReceiptRow r3 = pendingReceipt(WS_B, ulid(3), at(0));
    write(
        tx -> {
          tx.insertReceipt(r1);
          tx.insertReceipt(r2);
          tx.insertReceipt(r3);
        });
    List<Tx.Signed> batch =
        List.of(
            new Tx.Signed(WS_A, ulid(1), signedJson(r1, "b25l")),
            new Tx.Signed(WS_A, ulid(2), signedJson(r2, "dHdv")),
            new Tx.Signed(WS_A, ulid(3), signedJson(r3, "d3Jvbmc")), // wrong workspace
            new Tx.Signed(WS_B, ulid(3), signedJson(r3, "dGhyZWU")),
            new Tx.Signed(WS_A, ulid(9), signedJson(r1, "bm9uZQ")));
    assertThat(store().inTransaction((Tx tx) -> tx.markSignedAll(batch)))
        .containsExactly(true, false, false, true, false);
    assertThat(store().inTransaction((Tx tx) -> tx.markSignedAll(batch)))
        .containsExactly(false, false, false, false, false);
    assertThat(store().inTransaction((Tx tx) -> tx.markSignedAll(List.of()))).isEmpty();
    read(
        tx -> {
          assertThat(tx.receipt(WS_A, ulid(1))).contains(signed(r1, signedJson(r1, "b25l")));
          assertThat(tx.receipt(WS_A, ulid(2))).contains(r2);
          assertThat(tx.receipt(WS_B, ulid(3))).contains(signed(r3, signedJson(r3, "dGhyZWU")));
          assertThat(tx.pendingReceipts(null, 10)).isEmpty();
          return null;
        });
  }

  @Test
  default void markSignedStoresOnceThenReturnsFalseAndKeepsTheFirstSignature() {
    ReceiptRow r = pendingReceipt(WS_A, ulid(1), at(0));
    ReceiptRow pending2 = pendingReceipt(WS_A, ulid(2), at(0));
    ReceiptRow signedAtInsert = signed(pending2, signedJson(pending2, "b3JpZ2luYWw"));
    write(
        tx -> {
          tx.insertReceipt(r);
          tx.insertReceipt(signedAtInsert);
        });
    String first = signedJson(r, "Zmlyc3Q");
    String second = signedJson(r, "c2Vjb25k");
    assertThat(store().inTransaction((Tx tx) -> tx.markSigned(WS_B, ulid(1), first))).isFalse();
    assertThat(read((Tx tx) -> tx.receipt(WS_A, ulid(1)))).contains(r);
    assertThat(store().inTransaction((Tx tx) -> tx.markSigned(WS_A, ulid(1), first))).isTrue();
    assertThat(store().inTransaction((Tx tx) -> tx.markSigned(WS_A, ulid(1), second))).isFalse();
    assertThat(store().inTransaction((Tx tx) -> tx.markSigned(WS_A, ulid(1), first))).isFalse();
    assertThat(store().inTransaction((Tx tx) -> tx.markSigned(WS_A, ulid(2), second))).isFalse();
    assertThat(store().inTransaction((Tx tx) -> tx.markSigned(WS_A, ulid(9), first))).isFalse();
    read(
        tx -> {
          ReceiptRow back = tx.receipt(WS_A, ulid(1)).orElseThrow();
          assertThat(back).isEqualTo(signed(r, first));
          assertThat(back.isSigned()).isTrue();
          assertThat(back.payloadJson()).isEqualTo(r.payloadJson());
          assertThat(tx.receipt(WS_A, ulid(2))).contains(signedAtInsert);
          assertThat(tx.receipt(WS_A, ulid(9))).isEmpty();
          assertThat(tx.pendingReceipts(null, 10)).isEmpty();
          return null;
        });
    // Within one transaction the second call also sees the first.
    ReceiptRow r3 = pendingReceipt(WS_A, ulid(3), at(0));
    write(tx -> tx.insertReceipt(r3));
    store()
        .inTransaction(
            tx -> {
              assertThat(tx.markSigned(WS_A, ulid(3), signedJson(r3, "YQ"))).isTrue();
              assertThat(tx.markSigned(WS_A, ulid(3), signedJson(r3, "Yg"))).isFalse();
              return null;
            });
    assertThat(read((Tx tx) -> tx.receipt(WS_A, ulid(3))).orElseThrow().signedJson())
        .isEqualTo(signedJson(r3, "YQ"));
  }

  @Test
  default void markSignedRefusesATextThatIsNotThePayloadWithASignatureMemberAppended() {
    ReceiptRow r = pendingReceipt(WS_A, ulid(1), at(0));
    ReceiptRow other = pendingReceipt(WS_A, ulid(2), at(0));
    write(
        tx -> {
          tx.insertReceipt(r);
          tx.insertReceipt(other);
        });
    String good = signedJson(r, "Z29vZA");
    List<String> refused =
        List.of(
            "{\"signed\":true}", // no signature member
            signedJson(other, "b3RoZXI"), // another receipt's payload
            good.substring(0, good.length() - 1), // truncated
            r.payloadJson()); // the payload alone
    for (String text : refused) {
      assertThat(store().inTransaction((Tx tx) -> tx.markSigned(WS_A, ulid(1), text)))
          .as(text)
          .isFalse();
    }
    List<Tx.Signed> batch = refused.stream().map(t -> new Tx.Signed(WS_A, ulid(1), t)).toList();
    assertThat(store().inTransaction((Tx tx) -> tx.markSignedAll(batch)))
        .containsExactly(false, false, false, false);
    assertThat(read((Tx tx) -> tx.receipt(WS_A, ulid(1)))).contains(r);
    assertThat(read((Tx tx) -> tx.pendingReceipts(null, 10))).containsExactly(r, other);
    assertThat(store().inTransaction((Tx tx) -> tx.markSigned(WS_A, ulid(1), good))).isTrue();
    assertThat(read((Tx tx) -> tx.receipt(WS_A, ulid(1)))).contains(signed(r, good));
  }
}
