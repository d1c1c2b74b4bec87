package dev.agentauth.server.signing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.server.store.HeldSignerStore;
import dev.agentauth.server.store.MemoryStore;
import dev.agentauth.server.store.ReceiptRow;
import dev.agentauth.server.store.SigningKeyRow;
import dev.agentauth.server.store.Store;
import dev.agentauth.server.store.WorkspaceRow;
import dev.agentauth.server.store.jdbc.JdbcStore;
import dev.agentauth.server.store.jdbc.MasterKey;
import dev.agentauth.verifier.signing.ReceiptSigner;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The signer serves workspaces in turn: a workspace with thousands of receipts waiting, in memory
 * or in the store, does not stand before another workspace's receipt, also when a restart finds the
 * backlog in the store.
 */
class SigningFairnessIT {
  private static final Instant T0 = Instant.parse("2026-11-22T10:00:00.000Z");
  private static final String FLOOD = "ws_flood";
  private static final String QUIET = "ws_quiet";
  private static final Clock CLOCK = Clock.fixed(T0.plusSeconds(1), ZoneOffset.UTC);

  /** Receipts the flood has waiting; the quiet workspace's one must come long before the last. */
  private static final int FLOODED = 12_000;

  /**
   * Signed before the quiet workspace's receipt, at most: a few batches and pages, not the flood.
   */
  private static final long SIGNED_BEFORE_AT_MOST = 2_000;

  @TempDir Path dir;
  private final MasterKey masterKey = MasterKey.random();

  private Store open(String kind) {
    return kind.equals("memory")
        ? new MemoryStore()
        : JdbcStore.sqlite(dir.resolve("agentauth.db"), masterKey);
  }

  private static void createWorkspace(Store store, String ws) {
    byte[] seed = new byte[32];
    java.util.Arrays.fill(seed, (byte) ws.length());
    String keyId = ws + "/k1";
    SigningKeyRow key =
        new SigningKeyRow(
            ws, keyId, seed, ReceiptSigner.fromSeed(keyId, seed).publicKey(), T0, null);
    store.inTransaction(
        tx -> {
          tx.insertWorkspace(new WorkspaceRow(ws, "pro", T0));
          tx.insertSigningKey(key);
          return null;
        });
  }

  private static List<ReceiptRow> insert(Store store, String ws, int from, int count) {
    List<ReceiptRow> rows = new ArrayList<>(count);
    for (int n = from; n < from + count; n++) {
      String id = String.format("R%09d", n);
      String payload =
          "{\"issued_at\":\""
              + T0
              + "\",\"pad\":\""
              + "x".repeat(200)
              + "\",\"receipt_id\":\""
              + id
              + "\"}";
      rows.add(
          new ReceiptRow(ws, id, "auth_1", "u", null, null, "s", null, "allow", T0, payload, null));
    }
    store.inTransaction(
        tx -> {
          rows.forEach(tx::insertReceipt);
          return null;
        });
    return rows;
  }

  /** Completes with how many receipts the signer had signed when {@code receipt} was signed. */
  private static CompletableFuture<Long> signedBefore(SigningService signer, ReceiptRow receipt) {
    return signer.whenSigned(receipt.receiptId()).thenApply(text -> signer.signedTotal());
  }

  @ParameterizedTest
  @ValueSource(strings = {"memory", "sqlite"})
  void aQuietWorkspacesReceiptIsSignedAheadOfAnotherWorkspacesBacklog(String kind)
      throws Exception {
    HeldSignerStore store = new HeldSignerStore(open(kind));
    createWorkspace(store, FLOOD);
    createWorkspace(store, QUIET);
    SigningService signer = new SigningService(store, CLOCK, nanos -> {});
    signer.start();
    try {
      // The flood's receipts arrive first, beyond what the signer holds in memory for it.
      List<CompletableFuture<String>> all = new ArrayList<>();
      for (int i = 0; i < FLOODED; i += 1_000) {
        List<ReceiptRow> rows = insert(store, FLOOD, i, 1_000);
        rows.forEach(r -> all.add(signer.whenSigned(r.receiptId())));
        signer.submit(rows);
      }
      ReceiptRow quiet = insert(store, QUIET, FLOODED, 1).get(0);
      CompletableFuture<Long> before = signedBefore(signer, quiet);
      signer.submit(List.of(quiet));
      assertThat(signer.unsigned(FLOOD)).isEqualTo(FLOODED);
      assertThat(signer.unsigned(QUIET)).isEqualTo(1);

      store.release();

      assertThat(before.get(60, TimeUnit.SECONDS)).isLessThan(SIGNED_BEFORE_AT_MOST);
      awaitAll(all);
      assertThat(signer.signedTotal()).isEqualTo(FLOODED + 1);
      assertThat(signer.unsigned(FLOOD)).isZero();
    } finally {
      store.release();
      signer.close();
      store.close();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"memory", "sqlite"})
  void afterARestartTheStoresBacklogIsReadBackOneWorkspaceInTurn(String kind) throws Exception {
    Store store = open(kind);
    createWorkspace(store, FLOOD);
    createWorkspace(store, QUIET);
    List<ReceiptRow> flood = insert(store, FLOOD, 0, FLOODED);
    ReceiptRow quiet = insert(store, QUIET, FLOODED, 1).get(0); // the newest receipt
    if (kind.equals("sqlite")) {
      store.close(); // a restart: the next signer finds them in the database only
      store = open(kind);
    }
    SigningService signer = new SigningService(store, CLOCK, nanos -> {});
    CompletableFuture<Long> before = signedBefore(signer, quiet);
    List<CompletableFuture<String>> all =
        flood.stream().map(r -> signer.whenSigned(r.receiptId())).toList();
    try {
      signer.start();

      assertThat(before.get(60, TimeUnit.SECONDS)).isLessThan(SIGNED_BEFORE_AT_MOST);
      awaitAll(all);
      assertThat(signer.signedTotal()).isEqualTo(FLOODED + 1);
      Store s = store;
      long left = s.read(tx -> tx.countPendingReceipts(Long.MAX_VALUE));
      assertThat(left).isZero();
    } finally {
      signer.close();
      store.close();
    }
  }

  private static void awaitAll(List<CompletableFuture<String>> signed) throws Exception {
    CompletableFuture.allOf(signed.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
  }
}
