package dev.agentauth.server.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.agentauth.server.AgentAuthServer;
import dev.agentauth.server.ServerHarness;
import dev.agentauth.server.ServerHarness.Resp;
import dev.agentauth.server.store.StoreException;
import dev.agentauth.server.store.StoreUnavailableException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SQLite writer survives whatever fails inside it, and no caller waits on it for ever: a batch
 * that fails with an Error is rolled back whole and the writer goes on; a caller whose wait runs
 * out gets {@link StoreUnavailableException}, and its job, if not started yet, never runs.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SqliteWriterFailureIT {
  private static final Duration SHORT_WAIT = Duration.ofMillis(500);

  @TempDir Path dir;
  private final MasterKey key = MasterKey.random();
  private JdbcStore store;

  @AfterEach
  void close() {
    if (store != null) {
      store.close();
    }
  }

  /**
   * Opens the store; {@code writeWait} applies once {@link #shortWaits} is called (set-up writes
   * keep the default, so that a slow disk does not fail them).
   */
  private JdbcStore open(Duration writeWait) {
    store = JdbcStore.sqlite(dir.resolve("writer.db"), key);
    this.wait = writeWait;
    return store;
  }

  private Duration wait;

  private void shortWaits() {
    store.writeWait(wait);
  }

  private void defaultWaits() {
    store.writeWait(JdbcStore.WRITE_WAIT);
  }

  private static void put(JdbcTx tx, String name) {
    tx.insertMetaIfAbsent(name, name.getBytes(StandardCharsets.US_ASCII));
  }

  private Optional<byte[]> get(String name) {
    return store.read(tx -> ((JdbcTx) tx).meta(name));
  }

  private void write(String name) {
    store.inTransaction(
        tx -> {
          put((JdbcTx) tx, name);
          return null;
        });
  }

  @Test
  void anErrorInTheWritersOwnCodeFailsItsBatchAndTheWriterGoesOn() {
    open(JdbcStore.WRITE_WAIT);
    store.failWriterOnce(new OutOfMemoryError("simulated: Java heap space"));

    assertThatThrownBy(() -> write("lost"))
        .isInstanceOf(StoreException.class)
        .hasRootCauseInstanceOf(OutOfMemoryError.class);

    assertThat(store.isLive()).as("the writer thread is alive").isTrue();
    assertThat(store.isReachable()).isTrue();
    write("next");
    assertThat(get("next")).isPresent();
    assertThat(get("lost")).isEmpty();
  }

  @Test
  void aJobThrowingOutOfMemoryErrorFailsAndRollsBackItsBatchAndTheWriterGoesOn() {
    assertJobErrorIsContained(new OutOfMemoryError("simulated: Java heap space"));
  }

  @Test
  void aJobThrowingStackOverflowErrorFailsAndRollsBackItsBatchAndTheWriterGoesOn() {
    assertJobErrorIsContained(new StackOverflowError("simulated"));
  }

  /**
   * A job of a batch of three throws {@code error} after writing: the whole batch is rolled back
   * (that job's caller gets the error unchanged, the others' a store failure, nothing of it is
   * stored), and the writer commits the next write.
   */
  private void assertJobErrorIsContained(Error error) {
    open(JdbcStore.WRITE_WAIT);
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    CompletableFuture<Object> blocker =
        CompletableFuture.supplyAsync(
            () ->
                store.inTransaction(
                    tx -> {
                      running.countDown();
                      await(release);
                      return null;
                    }));
    await(running);
    // Queued while the writer is busy: the three run as one batch.
    CompletableFuture<Object> before = CompletableFuture.supplyAsync(() -> writeAndReturn("a"));
    CompletableFuture<Object> failing =
        CompletableFuture.supplyAsync(
            () ->
                store.inTransaction(
                    tx -> {
                      put((JdbcTx) tx, "b");
                      throw error;
                    }));
    CompletableFuture<Object> after = CompletableFuture.supplyAsync(() -> writeAndReturn("c"));
    awaitQueued(3);
    release.countDown();

    assertThat(blocker.join()).isNull();
    // The job that threw gets its own Error; the others of its batch a store failure.
    assertThatThrownBy(failing::join).cause().isSameAs(error);
    for (CompletableFuture<Object> f : java.util.List.of(before, after)) {
      assertThatThrownBy(f::join)
          .hasCauseInstanceOf(StoreException.class)
          .hasRootCauseInstanceOf(error.getClass());
    }
    assertThat(get("a")).isEmpty();
    assertThat(get("b")).isEmpty();
    assertThat(get("c")).isEmpty();

    assertThat(store.isLive()).as("the writer thread is alive").isTrue();
    write("d");
    assertThat(get("d")).isPresent();
  }

  private Object writeAndReturn(String name) {
    write(name);
    return name;
  }

  @Test
  void aCallerOfAStuckWriterGetsStoreUnavailableWithinTheWait() {
    open(SHORT_WAIT);
    shortWaits();
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    CompletableFuture<Object> stuck =
        CompletableFuture.supplyAsync(
            () ->
                store.inTransaction(
                    tx -> {
                      running.countDown();
                      await(release);
                      return null;
                    }));
    try {
      await(running);
      long start = System.nanoTime();
      StoreUnavailableException e =
          assertTimeoutPreemptively(
              Duration.ofSeconds(10),
              () -> catchUnavailable(() -> write("queued")),
              "a caller of a stuck writer waits for ever");
      long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      assertThat(tookMillis).isBetween(SHORT_WAIT.toMillis() - 50, 5_000L);
      assertThat(e.retryAfterSeconds()).isEqualTo(1);
      assertThat(e.getMessage()).contains("nothing was written");

      // The stuck job's own caller was told its outcome is unknown.
      assertThatThrownBy(stuck::join)
          .hasCauseInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("may still commit");
    } finally {
      defaultWaits();
      release.countDown();
    }
  }

  @Test
  void aRequestToAStuckWriterIsAnswered503UnavailableWithRetryAfter() {
    open(SHORT_WAIT);
    try (ServerHarness h = ServerHarness.start(AgentAuthServer.builder().store(store))) {
      shortWaits();
      CountDownLatch running = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      CompletableFuture.runAsync(
          () ->
              catchUnavailable(
                  () ->
                      store.inTransaction(
                          tx -> {
                            running.countDown();
                            await(release);
                            return null;
                          })));
      try {
        await(running);
        Resp r =
            h.post(
                "/v1/authorizations",
                h.json(
                    "{\"user_id\":\"u1\",\"agent_id\":\"a1\",\"scopes\":[{\"name\":\"email.send\"}],\"expires_at\":\"2026-11-23T10:00:00Z\"}"));
        assertThat(r.status()).as(r.raw()).isEqualTo(503);
        assertThat(r.code()).isEqualTo("unavailable");
        assertThat(r.header("Retry-After")).isEqualTo("1");
      } finally {
        defaultWaits();
        release.countDown();
      }
    }
  }

  @Test
  void aQueuedJobWhoseCallerGaveUpNeverRuns() {
    open(SHORT_WAIT);
    shortWaits();
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    CompletableFuture<Object> stuck =
        CompletableFuture.supplyAsync(
            () ->
                store.inTransaction(
                    tx -> {
                      running.countDown();
                      await(release);
                      put((JdbcTx) tx, "stuck");
                      return null;
                    }));
    await(running);
    AtomicBoolean ran = new AtomicBoolean();
    assertTimeoutPreemptively(
        Duration.ofSeconds(10),
        () ->
            catchUnavailable(
                () ->
                    store.inTransaction(
                        tx -> {
                          ran.set(true);
                          put((JdbcTx) tx, "abandoned");
                          return null;
                        })));
    defaultWaits();
    release.countDown();
    assertThatThrownBy(stuck::join).hasCauseInstanceOf(StoreUnavailableException.class);

    write("later"); // runs after the abandoned job's turn
    assertThat(get("later")).isPresent();
    assertThat(ran).as("the abandoned job ran").isFalse();
    assertThat(get("abandoned")).isEmpty();
    // The job that was running when its caller gave up completed.
    assertThat(get("stuck")).isPresent();
  }

  @Test
  void closeReturnsWhileTheWriterIsStuck() {
    open(SHORT_WAIT);
    shortWaits();
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    CompletableFuture.runAsync(
        () ->
            catchUnavailable(
                () ->
                    store.inTransaction(
                        tx -> {
                          running.countDown();
                          await(release);
                          return null;
                        })));
    await(running);
    try {
      assertTimeoutPreemptively(Duration.ofSeconds(10), () -> store.close());
      store = null;
    } finally {
      release.countDown();
    }
  }

  @Test
  void theDatabaseFilesAreOwnerOnlyEvenInAnExistingDirectory() throws Exception {
    assertThat(dir).isDirectory();
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    open(JdbcStore.WRITE_WAIT);
    write("x");
    for (String name : java.util.List.of("writer.db", "writer.db-wal", "writer.db-shm")) {
      Path f = dir.resolve(name);
      assertThat(f).exists();
      assertThat(Files.getPosixFilePermissions(f))
          .as(name)
          .containsExactlyInAnyOrder(
              PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
    }
  }

  @Test
  void existingWorldReadableDatabaseFilesAreMadeOwnerOnly() throws Exception {
    open(JdbcStore.WRITE_WAIT);
    write("x");
    store.close();
    store = null;
    Path db = dir.resolve("writer.db");
    Files.setPosixFilePermissions(db, PosixFilePermissions.fromString("rw-r--r--"));

    open(JdbcStore.WRITE_WAIT);
    assertThat(get("x")).isPresent();
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(db)))
        .isEqualTo("rw-------");
  }

  private static StoreUnavailableException catchUnavailable(Runnable r) {
    try {
      r.run();
    } catch (StoreUnavailableException e) {
      return e;
    }
    throw new AssertionError("expected StoreUnavailableException");
  }

  private void awaitQueued(int n) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (store.queuedWrites() < n) {
      assertThat(System.nanoTime()).as("%s writes queued", n).isLessThan(deadline);
      Thread.onSpinWait();
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      assertThat(latch.await(10, TimeUnit.SECONDS)).as("latch").isTrue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
