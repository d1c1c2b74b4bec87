package dev.agentauth.server;

import static dev.agentauth.server.CheckFixtures.authorizeScopes;
import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.server.ServerHarness.Resp;
import dev.agentauth.server.store.MemoryStore;
import dev.agentauth.server.store.Store;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Checks and new authorizations in flight per workspace ({@code --checks-in-flight-per-workspace}):
 * a workspace at its bound waits, then is answered 429 {@code rate_limited}, while another
 * workspace's checks go on; a {@code wait=true} wait for signatures holds no place.
 */
class ChecksInFlightIT {
  private static final String BUSY = "ws_local";
  private static final String SIGNER_THREAD = "agentauth-signer";

  /**
   * A memory store whose grouped transactions (checks) of {@link #BUSY} wait while {@link #checks}
   * is held, and whose signer transactions wait while {@link #signer} is held.
   */
  static final class GatedStore implements Store {
    private final MemoryStore delegate = new MemoryStore();
    volatile CountDownLatch checks = new CountDownLatch(0);
    volatile CountDownLatch signer = new CountDownLatch(0);
    final AtomicInteger checksHeld = new AtomicInteger();

    @Override
    public <T> T inGroupedTransaction(GroupKey key, CheckWork<T> work) {
      CountDownLatch gate = checks;
      if (key.workspaceId().equals(BUSY) && gate.getCount() > 0) {
        checksHeld.incrementAndGet();
        await(gate);
      }
      return delegate.inGroupedTransaction(key, work);
    }

    @Override
    public <T> T inTransaction(Work<T> work) {
      if (Thread.currentThread().getName().startsWith(SIGNER_THREAD)) {
        await(signer);
      }
      return delegate.inTransaction(work);
    }

    @Override
    public <T> T read(Work<T> work) {
      return delegate.read(work);
    }

    private static void await(CountDownLatch latch) {
      try {
        if (!latch.await(30, TimeUnit.SECONDS)) {
          throw new IllegalStateException("test gate held for 30 s");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }

    @Override
    public boolean isReachable() {
      return delegate.isReachable();
    }

    @Override
    public String describe() {
      return "gated " + delegate.describe();
    }

    @Override
    public void close() {
      delegate.close();
    }
  }

  private final GatedStore store = new GatedStore();
  private ServerHarness h;

  @AfterEach
  void stop() {
    store.checks.countDown();
    store.signer.countDown();
    if (h != null) {
      h.close();
    }
  }

  private ServerHarness start(int checksInFlight) {
    h =
        ServerHarness.start(
            AgentAuthServer.builder().store(store).checksInFlightPerWorkspace(checksInFlight));
    return h;
  }

  private static String checkBody(String authorizationId) {
    return "{\"authorization_id\":\"" + authorizationId + "\",\"scopes\":[\"crm.read\"]}";
  }

  private CompletableFuture<Resp> checkAsync(String key, String path, String authorizationId) {
    return CompletableFuture.supplyAsync(
        () -> h.send("POST", path, checkBody(authorizationId), key, java.util.Map.of()));
  }

  private static void awaitValue(AtomicInteger n, int value) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (n.get() < value) {
      assertThat(System.nanoTime()).as("waiting for %d held checks", value).isLessThan(deadline);
      Thread.sleep(10);
    }
  }

  @Test
  void aWorkspaceAtItsBoundWaitsThenGets429WhileAnotherWorkspaceIsServed() throws Exception {
    start(2);
    String busyKey = h.apiKey();
    String busyAuth = authorizeScopes(h, "crm.read");
    String otherKey = h.newWorkspace("ws_other", "pro");
    h.useApiKey(otherKey);
    String otherAuth = authorizeScopes(h, "crm.read");
    h.useApiKey(busyKey);

    store.checks = new CountDownLatch(1);
    List<CompletableFuture<Resp>> held = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      held.add(checkAsync(busyKey, "/v1/check", busyAuth));
    }
    awaitValue(store.checksHeld, 2);

    // Another workspace is not behind the busy one's checks.
    Resp other = h.send("POST", "/v1/check", checkBody(otherAuth), otherKey, java.util.Map.of());
    assertThat(other.status()).as(other.raw()).isEqualTo(200);

    // A third check of the busy workspace waits for one of its own, then is refused.
    long started = System.nanoTime();
    Resp third = h.send("POST", "/v1/check", checkBody(busyAuth), busyKey, java.util.Map.of());
    long waitedMillis = Duration.ofNanos(System.nanoTime() - started).toMillis();
    assertThat(third.status()).as(third.raw()).isEqualTo(429);
    assertThat(third.code()).isEqualTo("rate_limited");
    assertThat(third.header("Retry-After")).isEqualTo("1");
    assertThat(third.body().path("detail").asText())
        .contains("2 checks and new authorizations in flight");
    assertThat(waitedMillis).isGreaterThanOrEqualTo(1_900);
    assertThat(held).noneMatch(CompletableFuture::isDone);

    // New authorizations share the bound: they make receipts too.
    Resp authorization =
        h.send(
            "POST",
            "/v1/authorizations",
            "{\"user_id\":\"u1\",\"agent_id\":\"a1\",\"scopes\":[{\"name\":\"x\"}],"
                + "\"expires_at\":\"2027-01-01T00:00:00Z\"}",
            busyKey,
            java.util.Map.of());
    assertThat(authorization.status()).as(authorization.raw()).isEqualTo(429);
    assertThat(authorization.code()).isEqualTo("rate_limited");

    // Released, the held checks are answered and the workspace is served again.
    store.checks.countDown();
    for (CompletableFuture<Resp> f : held) {
      Resp r = f.get(20, TimeUnit.SECONDS);
      assertThat(r.status()).as(r.raw()).isEqualTo(200);
    }
    Resp after = h.send("POST", "/v1/check", checkBody(busyAuth), busyKey, java.util.Map.of());
    assertThat(after.status()).as(after.raw()).isEqualTo(200);
  }

  @Test
  void aCheckWaitingForItsSignaturesHoldsNoPlace() throws Exception {
    start(1);
    String key = h.apiKey();
    String auth = authorizeScopes(h, "crm.read");

    store.signer = new CountDownLatch(1);
    CompletableFuture<Resp> waiting = checkAsync(key, "/v1/check?wait=true", auth);
    // Once it has committed, its receipt is listed; it is then waiting for the held signer.
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (CheckFixtures.receipts(h, "authorization_id=" + auth + "&scope=crm.read").isEmpty()) {
      assertThat(System.nanoTime()).as("the waiting check's commit").isLessThan(deadline);
      Thread.sleep(10);
    }

    long started = System.nanoTime();
    Resp next = h.send("POST", "/v1/check", checkBody(auth), key, java.util.Map.of());
    assertThat(next.status()).as(next.raw()).isEqualTo(200);
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
    assertThat(waiting).as("the first check still waits for its signature").isNotDone();

    store.signer.countDown();
    Resp signed = waiting.get(20, TimeUnit.SECONDS);
    assertThat(signed.status()).as(signed.raw()).isEqualTo(200);
    assertThat(signed.body().path("results").path("crm.read").path("receipt").has("signature"))
        .isTrue();
  }
}
