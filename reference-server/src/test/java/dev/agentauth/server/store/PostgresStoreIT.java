package dev.agentauth.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import dev.agentauth.server.domain.AuthorizationRow;
import dev.agentauth.server.store.jdbc.JdbcStore;
import dev.agentauth.server.store.jdbc.MasterKey;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The store conformance suite against the PostgreSQL {@link JdbcStore} (skipped, saying how to
 * provide a server, when none answers), plus what only a shared database has: two store instances
 * on one schema — as two server instances — exclude each other through row locks, advisory locks
 * and {@code SKIP LOCKED} claims.
 */
class PostgresStoreIT extends StoreConformance {
  /** How long a test waits for another thread or session before failing (a guard, not a check). */
  private static final long DEADLINE_SECONDS = 30;

  private String url;
  private MasterKey key;
  private ExecutorService pool;

  @Override
  protected Store newStore() {
    // Runs from the superclass's @BeforeEach, so the assumption skips the test before any setup.
    PostgresTestDatabase.assumeAvailable();
    key = MasterKey.random();
    url = PostgresTestDatabase.freshSchemaUrl();
    return JdbcStore.postgres(url, key);
  }

  @Override
  protected void afterStoreClosed() {
    if (url != null) {
      PostgresTestDatabase.dropSchema(url);
    }
  }

  @BeforeEach
  void startPool() {
    pool = Executors.newCachedThreadPool();
  }

  @AfterEach
  void stopPool() throws InterruptedException {
    if (pool == null) {
      return; // the test was skipped before the pool started
    }
    pool.shutdownNow();
    assertThat(pool.awaitTermination(DEADLINE_SECONDS, TimeUnit.SECONDS)).isTrue();
  }

  /** The test schema's URL with an application name identifying the sessions of one store. */
  private String urlWithApplicationName(String applicationName) {
    int at = url.indexOf("&currentSchema=");
    return url.substring(0, at) + "&ApplicationName=" + applicationName + url.substring(at);
  }

  /** A second store instance on the test's schema whose sessions carry {@code applicationName}. */
  private JdbcStore secondInstance(String applicationName) {
    return JdbcStore.postgres(urlWithApplicationName(applicationName), key);
  }

  private static String uniqueApplicationName() {
    return "agentauth-it-" + UUID.randomUUID().toString().substring(0, 8);
  }

  private <T> Future<T> async(Callable<T> task) {
    return pool.submit(task);
  }

  private static <T> T await(Future<T> f) throws Exception {
    return f.get(DEADLINE_SECONDS, TimeUnit.SECONDS);
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(DEADLINE_SECONDS, TimeUnit.SECONDS)) {
        throw new IllegalStateException("latch not released within the deadline");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * Polls {@code pg_stat_activity} until a session named {@code applicationName} waits for a lock;
   * fails if {@code blocked} completes first (it was not blocked) or at the deadline.
   */
  private static void awaitSessionWaitingForLock(String applicationName, Future<?> blocked)
      throws SQLException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_SECONDS);
    try (Connection c = DriverManager.getConnection(PostgresTestDatabase.BASE_URL);
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT count(*) FROM pg_stat_activity"
                    + " WHERE application_name = ? AND wait_event_type = 'Lock'")) {
      ps.setString(1, applicationName);
      while (true) {
        if (blocked.isDone()) {
          fail("the second instance's transaction completed while the first held the lock");
        }
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          if (rs.getInt(1) > 0) {
            return;
          }
        }
        if (System.nanoTime() > deadline) {
          fail("no session of " + applicationName + " started waiting for the lock");
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
      }
    }
  }

  /**
   * Waits for {@code task} to complete, failing at once if more than {@code alreadyWaiting}
   * sessions named {@code applicationName} wait for a lock meanwhile (the task was blocked where it
   * must not be).
   */
  private static <T> T awaitUnblocked(
      String applicationName, int alreadyWaiting, Future<T> task, String what) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_SECONDS);
    try (Connection c = DriverManager.getConnection(PostgresTestDatabase.BASE_URL);
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT count(*) FROM pg_stat_activity"
                    + " WHERE application_name = ? AND wait_event_type = 'Lock'")) {
      ps.setString(1, applicationName);
      while (!task.isDone()) {
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          if (rs.getInt(1) > alreadyWaiting && !task.isDone()) {
            fail(what + " blocked on a lock the other instance holds");
          }
        }
        if (System.nanoTime() > deadline) {
          fail(what + " did not complete");
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
      }
    }
    return task.get();
  }

  @Test
  void describesItselfWithoutPassword() {
    assertThat(store.describe()).startsWith("postgres:");
  }

  @Test
  void aSecondInstanceSeesEverythingTheFirstCommitted() {
    writeOneOfEverything(store);
    try (JdbcStore other = secondInstance(uniqueApplicationName())) {
      assertOneOfEverything(other);
    }
  }

  @Test
  void anInstanceWithAnotherMasterKeyIsRefused() {
    write(tx -> tx.insertWorkspace(new WorkspaceRow(WS_A, "free", T0)));
    assertThatThrownBy(() -> JdbcStore.postgres(url, MasterKey.random()).close())
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("master key");
  }

  @Test
  void authorizationForUpdateInOneInstanceBlocksTheOtherUntilCommit() throws Exception {
    write(tx -> tx.insertAuthorization(auth(WS_A, authId(1), "user_1", "agent_1", at(3600))));
    String app = uniqueApplicationName();
    List<String> events = Collections.synchronizedList(new ArrayList<>());
    CountDownLatch locked = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    try (JdbcStore other = secondInstance(app)) {
      Future<Object> first =
          async(
              () ->
                  store.inTransaction(
                      tx -> {
                        AuthorizationRow a =
                            tx.authorizationForUpdate(WS_A, authId(1)).orElseThrow();
                        tx.updateAuthorization(a.withBudgetSpent(a.budgetSpentMicros() + 100));
                        events.add("first locked");
                        locked.countDown();
                        await(release);
                        events.add("first commits");
                        return null;
                      }));
      await(locked);
      Future<Long> second =
          async(
              () ->
                  other.inTransaction(
                      tx -> {
                        AuthorizationRow a =
                            tx.authorizationForUpdate(WS_A, authId(1)).orElseThrow();
                        events.add("second locked");
                        tx.updateAuthorization(a.withBudgetSpent(a.budgetSpentMicros() + 10));
                        return a.budgetSpentMicros();
                      }));
      try {
        awaitSessionWaitingForLock(app, second);
        events.add("second seen waiting");
      } finally {
        release.countDown();
      }
      await(first);
      assertThat(await(second)).as("budget the second saw").isEqualTo(100);
      assertThat(events)
          .containsExactly("first locked", "second seen waiting", "first commits", "second locked");
      assertThat(
              read((Tx tx) -> tx.authorization(WS_A, authId(1))).orElseThrow().budgetSpentMicros())
          .isEqualTo(110);

      // A different authorization is not blocked by the lock on another one.
      write(tx -> tx.insertAuthorization(auth(WS_A, authId(2), "user_1", "agent_1", at(3600))));
      CountDownLatch locked2 = new CountDownLatch(1);
      CountDownLatch release2 = new CountDownLatch(1);
      Future<Object> holder =
          async(
              () ->
                  store.inTransaction(
                      tx -> {
                        tx.authorizationForUpdate(WS_A, authId(1)).orElseThrow();
                        locked2.countDown();
                        await(release2);
                        return null;
                      }));
      try {
        await(locked2);
        Future<Boolean> unrelated =
            async(
                () ->
                    other.inTransaction(
                        tx -> tx.authorizationForUpdate(WS_A, authId(2)).isPresent()));
        assertThat(awaitUnblocked(app, 0, unrelated, "locking another authorization")).isTrue();
      } finally {
        release2.countDown();
      }
      await(holder);
    }
  }

  @Test
  void concurrentClaimPendingFromTwoInstancesNeverReturnsTheSameReceipt() throws Exception {
    int due = 30;
    List<String> dueIds = new ArrayList<>();
    write(
        tx -> {
          for (int i = 0; i < due; i++) {
            String id = ulid(100 + i);
            dueIds.add(id);
            tx.insertReceipt(pendingReceipt(i % 2 == 0 ? WS_A : WS_B, id, at(-600 + i)));
          }
          tx.insertReceipt(signedWith(pendingReceipt(WS_A, ulid(1), at(-900)), "cw"));
          for (int i = 0; i < 3; i++) {
            tx.insertReceipt(pendingReceipt(WS_B, ulid(50 + i), at(i))); // not yet due
          }
        });
    String app = uniqueApplicationName();
    try (JdbcStore other = secondInstance(app)) {
      // One instance holds a claim while the other claims: the other gets the rest.
      CountDownLatch claimed = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      Future<List<String>> first =
          async(
              () ->
                  store.inTransaction(
                      tx -> {
                        List<String> ids =
                            tx.claimPending(at(-60), 12).stream()
                                .map(ReceiptRow::receiptId)
                                .toList();
                        claimed.countDown();
                        await(release);
                        return ids;
                      }));
      List<String> secondIds;
      try {
        await(claimed);
        secondIds =
            awaitUnblocked(
                app,
                0,
                async(
                    () ->
                        other.inTransaction(
                            tx ->
                                tx.claimPending(at(-60), 100).stream()
                                    .map(ReceiptRow::receiptId)
                                    .toList())),
                "claimPending in the second instance");
      } finally {
        release.countDown();
      }
      List<String> firstIds = await(first);
      assertThat(firstIds).containsExactlyElementsOf(dueIds.subList(0, 12));
      assertThat(secondIds).containsExactlyElementsOf(dueIds.subList(12, due));

      // Many claimers in both instances race to claim and sign: each receipt is signed once.
      List<Store> stores = List.of(store, other);
      List<Future<List<String>>> claimers = new ArrayList<>();
      CountDownLatch go = new CountDownLatch(1);
      for (int t = 0; t < 8; t++) {
        Store s = stores.get(t % 2);
        claimers.add(
            async(
                () -> {
                  await(go);
                  List<String> mine = new ArrayList<>();
                  while (true) {
                    List<String> batch =
                        s.inTransaction(
                            tx -> {
                              List<String> ids = new ArrayList<>();
                              for (ReceiptRow r : tx.claimPending(at(-60), 3)) {
                                if (!tx.markSigned(
                                    r.workspaceId(), r.receiptId(), signedJson(r, "Ynk"))) {
                                  throw new IllegalStateException(
                                      "claimed receipt " + r.receiptId() + " was already signed");
                                }
                                ids.add(r.receiptId());
                              }
                              return ids;
                            });
                    if (batch.isEmpty()) {
                      return mine;
                    }
                    mine.addAll(batch);
                  }
                }));
      }
      go.countDown();
      List<String> all = new ArrayList<>();
      for (Future<List<String>> f : claimers) {
        all.addAll(await(f));
      }
      assertThat(all).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(dueIds);
      assertThat(read((Tx tx) -> tx.pendingReceipts(null, 100)))
          .extracting(ReceiptRow::receiptId)
          .containsExactly(ulid(50), ulid(51), ulid(52));
    }
  }

  @Test
  void lockOfTheSameNameInTwoInstancesSerializes() throws Exception {
    String app = uniqueApplicationName();
    String name = "bundle/ws_a/assistant";
    List<String> events = Collections.synchronizedList(new ArrayList<>());
    CountDownLatch locked = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    try (JdbcStore other = secondInstance(app)) {
      Future<Object> first =
          async(
              () ->
                  store.inTransaction(
                      tx -> {
                        tx.lock(name);
                        events.add("first locked");
                        locked.countDown();
                        await(release);
                        tx.upsertBundle(bundle(WS_A, "assistant", "agent_first", T0));
                        events.add("first commits");
                        return null;
                      }));
      await(locked);
      Future<String> second =
          async(
              () ->
                  other.inTransaction(
                      tx -> {
                        tx.lock(name);
                        events.add("second locked");
                        return tx.bundle(WS_A, "assistant").map(BundleRow::agentId).orElse(null);
                      }));
      Future<Boolean> unrelated;
      try {
        awaitSessionWaitingForLock(app, second);
        events.add("second seen waiting");
        // Another name is not blocked.
        unrelated =
            async(
                () ->
                    other.inTransaction(
                        tx -> {
                          tx.lock("bundle/ws_a/other");
                          return true;
                        }));
        assertThat(awaitUnblocked(app, 1, unrelated, "a lock of another name")).isTrue();
      } finally {
        release.countDown();
      }
      await(first);
      assertThat(await(second)).isEqualTo("agent_first");
      assertThat(events)
          .containsExactly("first locked", "second seen waiting", "first commits", "second locked");

      // A rolled-back transaction releases its lock too.
      RuntimeException boom = new RuntimeException("roll back while holding the lock");
      assertThatThrownBy(
              () ->
                  store.inTransaction(
                      tx -> {
                        tx.lock(name);
                        throw boom;
                      }))
          .isSameAs(boom);
      Future<Boolean> after =
          async(
              () ->
                  other.inTransaction(
                      tx -> {
                        tx.lock(name);
                        return true;
                      }));
      assertThat(await(after)).isTrue();
    }
  }

  @Test
  void concurrentInstancesKeepCountersAndBudgetsExact() throws Exception {
    write(tx -> tx.insertAuthorization(auth(WS_A, authId(1), "user_1", "agent_1", at(3600))));
    try (JdbcStore other = secondInstance(uniqueApplicationName())) {
      List<Store> stores = List.of(store, other);
      List<Future<Integer>> workers = new ArrayList<>();
      CountDownLatch go = new CountDownLatch(1);
      for (int t = 0; t < 8; t++) {
        Store s = stores.get(t % 2);
        workers.add(
            async(
                () -> {
                  await(go);
                  int allowed = 0;
                  for (int i = 0; i < 25; i++) {
                    boolean ok =
                        s.inTransaction(
                            tx -> {
                              AuthorizationRow a =
                                  tx.authorizationForUpdate(WS_A, authId(1)).orElseThrow();
                              if (tx.allowCount(WS_A, authId(1), "calendar.read", DAY) >= 50
                                  || a.budgetSpentMicros() + 19 > a.budgetLimitMicros()) {
                                return false;
                              }
                              tx.addAllowCount(WS_A, authId(1), "calendar.read", DAY, 1);
                              tx.updateAuthorization(a.withBudgetSpent(a.budgetSpentMicros() + 19));
                              return true;
                            });
                    allowed += ok ? 1 : 0;
                  }
                  return allowed;
                }));
      }
      go.countDown();
      int total = 0;
      for (Future<Integer> f : workers) {
        total += await(f);
      }
      // The budget (1000) fits 52 spends of 19, the daily limit 50 allows: 50 win.
      assertThat(total).isEqualTo(50);
      read(
          tx -> {
            assertThat(tx.allowCount(WS_A, authId(1), "calendar.read", DAY)).isEqualTo(50);
            assertThat(tx.authorization(WS_A, authId(1)).orElseThrow().budgetSpentMicros())
                .isEqualTo(950);
            return null;
          });
    }
  }

  @Test
  void schemaIsCreatedOnceWhenManyInstancesOpenIt() throws Exception {
    // The store of this test already migrated the schema; more instances open it concurrently.
    List<Future<Boolean>> opens = new ArrayList<>();
    CountDownLatch go = new CountDownLatch(1);
    for (int i = 0; i < 2; i++) { // each instance has a pool of up to 16 connections
      opens.add(
          async(
              () -> {
                await(go);
                try (JdbcStore s = JdbcStore.postgres(url, key)) {
                  return s.isReachable();
                }
              }));
    }
    go.countDown();
    Set<Boolean> results = new HashSet<>();
    for (Future<Boolean> f : opens) {
      results.add(await(f));
    }
    assertThat(results).containsExactly(true);
  }
}
