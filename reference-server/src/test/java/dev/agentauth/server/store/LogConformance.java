package dev.agentauth.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.server.store.LogTx.Checkpoint;
import dev.agentauth.server.store.LogTx.Cosignature;
import dev.agentauth.server.store.LogTx.Node;
import dev.agentauth.server.store.LogTx.NodeId;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The receipt log's store operations ({@link LogTx}), run by {@link StoreConformance} on every
 * store: the same behaviour on each. Node hashes here are arbitrary bytes; the tree arithmetic has
 * tests of its own.
 */
final class LogConformance {
  private static final String WS_A = StoreConformance.WS_A;
  private static final String WS_B = StoreConformance.WS_B;

  private LogConformance() {}

  private static String id(long n) {
    return StoreConformance.ulid(n);
  }

  /** Inserts receipts {@code from..to} of {@code ws}, signing those {@code signed} says. */
  static void receipts(Store store, String ws, int from, int to, boolean signed) {
    StoreConformance.write(
        store,
        tx -> {
          for (int n = from; n <= to; n++) {
            ReceiptRow r = StoreConformance.pendingReceipt(ws, id(n), StoreConformance.at(n));
            tx.insertReceipt(r);
            if (signed) {
              assertThat(tx.markSigned(ws, id(n), StoreConformance.signedJson(r, "s" + n)))
                  .isTrue();
            }
          }
        });
  }

  private static long longOf(Store store, Store.Work<Long> work) {
    return store.read(work);
  }

  private static List<String> strings(Store store, Store.Work<List<String>> work) {
    return store.read(work);
  }

  private static boolean bool(Store store, Store.Work<Boolean> work) {
    return store.inTransaction(work);
  }

  private static byte[] hash(int level, long index) {
    byte[] h = new byte[32];
    h[0] = (byte) level;
    for (int i = 0; i < 8; i++) {
      h[1 + i] = (byte) (index >>> (8 * i));
    }
    h[31] = (byte) 0xff;
    return h;
  }

  private static List<Node> leafNodes(long from, int count) {
    List<Node> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      out.add(new Node(new NodeId(0, from + i), hash(0, from + i)));
    }
    return out;
  }

  static void unloggedReceiptsAreTheSignedOnesInIdOrderAndAppendingTakesThem(Store store) {
    receipts(store, WS_A, 1, 3, true);
    receipts(store, WS_A, 4, 4, false);
    receipts(store, WS_A, 5, 6, true);
    receipts(store, WS_B, 7, 7, true);
    store.read(
        tx -> {
          assertThat(tx.logSize(WS_A)).isZero();
          assertThat(tx.unloggedReceipts(WS_A, 10))
              .extracting(ReceiptRow::receiptId)
              .containsExactly(id(1), id(2), id(3), id(5), id(6));
          assertThat(tx.unloggedReceipts(WS_A, 2))
              .extracting(ReceiptRow::receiptId)
              .containsExactly(id(1), id(2));
          assertThat(tx.unloggedReceipts(WS_A, 1).get(0).signedJson()).contains("\"s1\"");
          assertThat(tx.unloggedWorkspaces(null, 10)).containsExactly(WS_A, WS_B);
          assertThat(tx.unloggedWorkspaces(WS_A, 10)).containsExactly(WS_B);
          assertThat(tx.unloggedWorkspaces(null, 1)).containsExactly(WS_A);
          return null;
        });
    List<String> ids = List.of(id(1), id(2), id(3));
    List<Node> nodes = new ArrayList<>(leafNodes(0, 3));
    nodes.add(new Node(new NodeId(1, 0), hash(1, 0)));
    assertThat(bool(store, tx -> tx.appendLog(WS_A, 0, ids, nodes))).isTrue();
    store.read(
        tx -> {
          assertThat(tx.logSize(WS_A)).isEqualTo(3);
          assertThat(tx.logSize(WS_B)).isZero();
          assertThat(tx.unloggedReceipts(WS_A, 10))
              .extracting(ReceiptRow::receiptId)
              .containsExactly(id(5), id(6));
          assertThat(tx.logIndex(WS_A, id(2))).isEqualTo(OptionalLong.of(1));
          assertThat(tx.logIndex(WS_A, id(5))).isEmpty();
          assertThat(tx.logIndex(WS_B, id(2))).isEmpty();
          assertThat(tx.logIndex(WS_A, "nope")).isEmpty();
          assertThat(tx.logEntries(WS_A, 1, 10))
              .extracting(e -> e.index() + ":" + e.receipt().receiptId())
              .containsExactly("1:" + id(2), "2:" + id(3));
          assertThat(tx.logEntries(WS_A, 0, 1).get(0).receipt().signedJson()).contains("\"s1\"");
          assertThat(tx.logEntries(WS_A, 3, 10)).isEmpty();
          assertThat(tx.logEntries(WS_B, 0, 10)).isEmpty();
          Map<NodeId, byte[]> got =
              tx.logNodes(
                  WS_A,
                  List.of(new NodeId(0, 2), new NodeId(1, 0), new NodeId(1, 1), new NodeId(0, 9)));
          assertThat(got.keySet()).containsExactlyInAnyOrder(new NodeId(0, 2), new NodeId(1, 0));
          assertThat(got.get(new NodeId(1, 0))).containsExactly(hash(1, 0));
          assertThat(tx.logNodes(WS_B, List.of(new NodeId(0, 0)))).isEmpty();
          assertThat(tx.logNodes(WS_A, List.of())).isEmpty();
          return null;
        });
  }

  static void appendingFromAStaleSizeChangesNothing(Store store) {
    receipts(store, WS_A, 1, 4, true);
    assertThat(bool(store, tx -> tx.appendLog(WS_A, 0, List.of(id(1)), leafNodes(0, 1)))).isTrue();
    // Another integrator prepared from size 0 too: refused, nothing written.
    assertThat(bool(store, tx -> tx.appendLog(WS_A, 0, List.of(id(2)), leafNodes(0, 1)))).isFalse();
    assertThat(bool(store, tx -> tx.appendLog(WS_A, 5, List.of(id(2)), leafNodes(5, 1)))).isFalse();
    store.read(
        tx -> {
          assertThat(tx.logSize(WS_A)).isEqualTo(1);
          assertThat(tx.logIndex(WS_A, id(2))).isEmpty();
          assertThat(tx.logNodes(WS_A, List.of(new NodeId(0, 1)))).isEmpty();
          return null;
        });
    assertThat(bool(store, tx -> tx.appendLog(WS_A, 1, List.of(id(2)), leafNodes(1, 1)))).isTrue();
    assertThat(longOf(store, tx -> tx.logSize(WS_A))).isEqualTo(2);
  }

  static void appendingAReceiptTwiceOrAnUnsignedOneFailsAndRollsBack(Store store) {
    receipts(store, WS_A, 1, 2, true);
    receipts(store, WS_A, 3, 3, false);
    assertThat(bool(store, tx -> tx.appendLog(WS_A, 0, List.of(id(1)), leafNodes(0, 1)))).isTrue();
    for (List<String> bad : List.of(List.of(id(2), id(1)), List.of(id(3)), List.of("missing"))) {
      assertThatThrownBy(
              () -> store.inTransaction(tx -> tx.appendLog(WS_A, 1, bad, leafNodes(1, bad.size()))))
          .isInstanceOf(StoreException.class);
    }
    store.read(
        tx -> {
          assertThat(tx.logSize(WS_A)).isEqualTo(1);
          assertThat(tx.logIndex(WS_A, id(2))).isEmpty();
          assertThat(tx.unloggedReceipts(WS_A, 10))
              .extracting(ReceiptRow::receiptId)
              .containsExactly(id(2));
          return null;
        });
  }

  static void aTransactionThatThrowsLeavesTheLogAsItWas(Store store) {
    receipts(store, WS_A, 1, 2, true);
    assertThatThrownBy(
            () ->
                store.inTransaction(
                    tx -> {
                      tx.appendLog(WS_A, 0, List.of(id(1), id(2)), leafNodes(0, 2));
                      tx.insertCheckpoint(
                          new Checkpoint(WS_A, 2, hash(1, 0), "note\n", Instant.EPOCH));
                      throw new IllegalStateException("boom");
                    }))
        .hasMessage("boom");
    store.read(
        tx -> {
          assertThat(tx.logSize(WS_A)).isZero();
          assertThat(tx.unloggedReceipts(WS_A, 10)).hasSize(2);
          assertThat(tx.logNodes(WS_A, List.of(new NodeId(0, 0)))).isEmpty();
          assertThat(tx.latestCheckpoint(WS_A)).isEmpty();
          return null;
        });
    assertThat(bool(store, tx -> tx.appendLog(WS_A, 0, List.of(id(1), id(2)), leafNodes(0, 2))))
        .isTrue();
  }

  static void checkpointsCosignaturesAndWitnessesRoundTrip(Store store) {
    Instant t = StoreConformance.at(5);
    Checkpoint c2 = new Checkpoint(WS_A, 2, hash(1, 0), "o\n2\nroot\n\n— o sig\n", t);
    Checkpoint c7 =
        new Checkpoint(WS_A, 7, hash(2, 1), "o\n7\nroot\n\n— o sig\n", t.plusSeconds(1));
    assertThat(bool(store, tx -> tx.insertCheckpoint(c7))).isTrue();
    assertThat(bool(store, tx -> tx.insertCheckpoint(c2))).isTrue();
    assertThat(bool(store, tx -> tx.insertCheckpoint(c2))).isFalse();
    store.read(
        tx -> {
          Checkpoint latest = tx.latestCheckpoint(WS_A).orElseThrow();
          assertThat(latest.treeSize()).isEqualTo(7);
          assertThat(latest.rootHash()).containsExactly(hash(2, 1));
          assertThat(latest.note()).isEqualTo(c7.note());
          assertThat(latest.at()).isEqualTo(c7.at());
          assertThat(tx.checkpoint(WS_A, 2).orElseThrow().note()).isEqualTo(c2.note());
          assertThat(tx.checkpoint(WS_A, 3)).isEmpty();
          assertThat(tx.latestCheckpoint(WS_B)).isEmpty();
          return null;
        });
    Cosignature w1 = new Cosignature(WS_A, 2, "w1+01020304", "— w1 AAAA", t);
    Cosignature w2 = new Cosignature(WS_A, 2, "w2+0a0b0c0d", "— w2 BBBB", t);
    Cosignature w1at7 = new Cosignature(WS_A, 7, "w1+01020304", "— w1 CCCC", t);
    assertThat(bool(store, tx -> tx.insertCosignature(w1))).isTrue();
    assertThat(bool(store, tx -> tx.insertCosignature(w2))).isTrue();
    assertThat(bool(store, tx -> tx.insertCosignature(w1at7))).isTrue();
    assertThat(
            bool(
                store,
                tx -> tx.insertCosignature(new Cosignature(WS_A, 2, "w1+01020304", "— w1 X", t))))
        .isFalse();
    store.read(
        tx -> {
          assertThat(tx.cosignatures(WS_A, 2))
              .extracting(Cosignature::line)
              .containsExactly("— w1 AAAA", "— w2 BBBB");
          assertThat(tx.cosignatures(WS_B, 2)).isEmpty();
          Set<String> both = Set.of("w1+01020304", "w2+0a0b0c0d");
          assertThat(tx.newestCosignedSize(WS_A, both, 1)).isEqualTo(OptionalLong.of(7));
          assertThat(tx.newestCosignedSize(WS_A, both, 2)).isEqualTo(OptionalLong.of(2));
          assertThat(tx.newestCosignedSize(WS_A, both, 3)).isEmpty();
          assertThat(tx.newestCosignedSize(WS_A, Set.of("w2+0a0b0c0d"), 1))
              .isEqualTo(OptionalLong.of(2));
          assertThat(tx.newestCosignedSize(WS_A, Set.of("w9+00000000"), 1)).isEmpty();
          assertThat(tx.logWitnesses(WS_A)).isEmpty();
          return null;
        });
    StoreConformance.write(store, tx -> tx.setLogWitnesses(WS_A, List.of("b+1+x", "a+2+y")));
    assertThat(strings(store, tx -> tx.logWitnesses(WS_A))).containsExactly("b+1+x", "a+2+y");
    StoreConformance.write(store, tx -> tx.setLogWitnesses(WS_A, List.of("c+3+z")));
    assertThat(strings(store, tx -> tx.logWitnesses(WS_A))).containsExactly("c+3+z");
    StoreConformance.write(store, tx -> tx.setLogWitnesses(WS_A, List.of()));
    assertThat(strings(store, tx -> tx.logWitnesses(WS_A))).isEmpty();
    assertThat(strings(store, tx -> tx.logWitnesses(WS_B))).isEmpty();
  }

  static void uncheckpointedWorkspacesAreThoseWhoseLogOutgrewTheirNewestCheckpoint(Store store) {
    receipts(store, WS_A, 1, 2, true);
    receipts(store, WS_B, 3, 3, true);
    StoreConformance.write(
        store,
        tx -> {
          tx.appendLog(WS_A, 0, List.of(id(1), id(2)), leafNodes(0, 2));
          tx.appendLog(WS_B, 0, List.of(id(3)), leafNodes(0, 1));
        });
    assertThat(strings(store, tx -> tx.uncheckpointedWorkspaces(10))).containsExactly(WS_A, WS_B);
    StoreConformance.write(
        store,
        tx -> tx.insertCheckpoint(new Checkpoint(WS_A, 2, hash(1, 0), "n\n", Instant.EPOCH)));
    assertThat(strings(store, tx -> tx.uncheckpointedWorkspaces(10))).containsExactly(WS_B);
  }

  /** Many concurrent integrators racing from the same sizes: no gap, no duplicate. */
  static void concurrentAppendsNeverLeaveAGapOrADuplicate(Store store) throws Exception {
    receipts(store, WS_A, 1, 60, true);
    AtomicInteger won = new AtomicInteger();
    StoreConformance.runConcurrently(
        4,
        thread -> {
          for (int round = 0; round < 60; round++) {
            boolean ok =
                store.inTransaction(
                    tx -> {
                      long size = tx.logSize(WS_A);
                      List<ReceiptRow> next = tx.unloggedReceipts(WS_A, 3);
                      if (next.isEmpty()) {
                        return false;
                      }
                      List<String> ids = next.stream().map(ReceiptRow::receiptId).toList();
                      return tx.appendLog(WS_A, size, ids, leafNodes(size, ids.size()));
                    });
            if (ok) {
              won.incrementAndGet();
            }
          }
          return null;
        });
    store.read(
        tx -> {
          assertThat(tx.logSize(WS_A)).isEqualTo(60);
          List<LogTx.Entry> all = tx.logEntries(WS_A, 0, 100);
          assertThat(all).hasSize(60);
          for (int i = 0; i < 60; i++) {
            assertThat(all.get(i).index()).isEqualTo(i);
            assertThat(all.get(i).receipt().receiptId()).isEqualTo(id(i + 1));
          }
          return null;
        });
    assertThat(won.get()).isEqualTo(20);
  }
}
