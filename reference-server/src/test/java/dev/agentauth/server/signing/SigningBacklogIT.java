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
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the signer holds in memory stays bounded however far signing falls behind, and every pending
 * receipt is still signed exactly once: receipts that do not fit in its queue stay in the store and
 * are read back page by page, also when a restart finds many of them.
 */
class SigningBacklogIT {
  private static final Instant T0 = Instant.parse("2026-11-22T10:00:00.000Z");
  private static final String WS = "ws_a";
  private static final Clock CLOCK = Clock.fixed(T0.plusSeconds(1), ZoneOffset.UTC);

  @TempDir Path dir;
  private final MasterKey masterKey = MasterKey.random();

  private Store open(String kind) {
    return kind.equals("memory")
        ? new MemoryStore()
        : JdbcStore.sqlite(dir.resolve("agentauth.db"), masterKey);
  }

  private static void createWorkspace(Store store) {
    byte[] seed = new byte[32];
    java.util.Arrays.fill(seed, (byte) 7);
    String keyId = WS + "/k1";
    SigningKeyRow key =
        new SigningKeyRow(
            WS, keyId, seed, ReceiptSigner.fromSeed(keyId, seed).publicKey(), T0, null);
    store.inTransaction(
        tx -> {
          tx.insertWorkspace(new WorkspaceRow(WS, "pro", T0));
          tx.insertSigningKey(key);
          return null;
        });
  }

  /** Receipt {@code n}, with a payload of about {@code padding} more characters. */
  private static ReceiptRow receipt(int n, int padding) {
    String id = String.format("R%09d", n);
    String payload =
        "{\"issued_at\":\""
            + T0
            + "\",\"pad\":\""
            + "x".repeat(padding)
            + "\",\"receipt_id\":\""
            + id
            + "\"}";
    return new ReceiptRow(WS, id, "auth_1", "u", null, null, "s", null, "allow", T0, payload, null);
  }

  private static List<ReceiptRow> insert(Store store, int from, int count, int padding) {
    List<ReceiptRow> rows = new ArrayList<>(count);
    for (int i = from; i < from + count; i++) {
      rows.add(receipt(i, padding));
    }
    store.inTransaction(
        tx -> {
          rows.forEach(tx::insertReceipt);
          return null;
        });
    return rows;
  }

  /**
   * Waits for every future while checking, between waits, what the signer holds in memory: returns
   * the largest queue seen.
   */
  private static int awaitAll(
      SigningService signer, List<CompletableFuture<String>> signed, long timeoutSeconds)
      throws Exception {
    CompletableFuture<Void> all = CompletableFuture.allOf(signed.toArray(CompletableFuture[]::new));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
    int maxQueued = 0;
    while (true) {
      maxQueued = Math.max(maxQueued, signer.queued());
      try {
        all.get(20, TimeUnit.MILLISECONDS);
        return maxQueued;
      } catch (TimeoutException e) {
        assertThat(System.nanoTime()).as("every receipt signed in time").isLessThan(deadline);
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"memory", "sqlite"})
  void theQueueStaysWithinItsBoundsWhileReceiptsArriveFasterThanTheyAreSigned(String kind)
      throws Exception {
    HeldSignerStore store = new HeldSignerStore(open(kind));
    createWorkspace(store);
    SigningService.Limits limits = new SigningService.Limits(100, 60_000, 1_000_000);
    SigningService signer = new SigningService(store, CLOCK, nanos -> {}, limits);
    signer.start();
    try {
      List<CompletableFuture<String>> signed = new ArrayList<>();
      List<ReceiptRow> all = new ArrayList<>();
      for (int round = 0; round < 50; round++) {
        // Payloads of 100 to 1,000 characters: the byte budget binds as well as the count.
        List<ReceiptRow> rows = insert(store, round * 100, 100, 100 + 18 * round);
        rows.forEach(r -> signed.add(signer.whenSigned(r.receiptId())));
        signer.submit(rows);
        all.addAll(rows);
        assertThat(signer.queued()).isLessThanOrEqualTo(limits.queued());
        assertThat(signer.queuedBytes()).isLessThanOrEqualTo(limits.queuedBytes());
      }
      assertThat(store.held()).as("the signer was held back").isPositive();
      assertThat(signer.backlog()).isEqualTo(all.size());

      store.release();
      awaitAll(signer, signed, 60);

      assertThat(signer.signedTotal()).as("each stored exactly once").isEqualTo(all.size());
      assertThat(signer.backlog()).isZero();
      long left = store.read(tx -> tx.countPendingReceipts(Long.MAX_VALUE));
      assertThat(left).isZero();
      for (int i = 0; i < all.size(); i++) {
        String id = all.get(i).receiptId();
        String stored = store.read(tx -> tx.receipt(WS, id).orElseThrow().signedJson());
        assertThat(stored).isEqualTo(signed.get(i).get());
      }
    } finally {
      store.release();
      signer.close();
      store.close();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"memory", "sqlite"})
  void aRestartOnManyPendingReceiptsStartsAtOnceWithABoundedQueueAndSignsThemAll(String kind)
      throws Exception {
    int count = 100_000;
    Store store = open(kind);
    createWorkspace(store);
    List<ReceiptRow> rows = insert(store, 0, count, 0);
    if (kind.equals("sqlite")) {
      store.close(); // a restart: the next signer finds them in the database only
      store = open(kind);
    }
    SigningService signer = new SigningService(store, CLOCK, nanos -> {});
    Function<ReceiptRow, CompletableFuture<String>> waiter = r -> signer.whenSigned(r.receiptId());
    List<CompletableFuture<String>> signed = rows.stream().map(waiter).toList();
    try {
      long started = System.nanoTime();
      signer.start();
      long startMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
      assertThat(startMillis).as("start() reads no receipt, only counts them").isLessThan(3_000);
      // Every pending receipt counted (the signers may already have signed a few).
      long backlog = signer.backlog();
      assertThat(backlog + signer.signedTotal()).isGreaterThanOrEqualTo(count);

      int maxQueued = awaitAll(signer, signed, 120);

      assertThat(maxQueued).isLessThanOrEqualTo(SigningService.Limits.DEFAULT.queued());
      assertThat(signer.signedTotal()).isEqualTo(count);
      assertThat(signer.backlog()).isZero();
      long left = store.read(tx -> tx.countPendingReceipts(Long.MAX_VALUE));
      assertThat(left).isZero();
    } finally {
      signer.close();
      store.close();
    }
  }
}
