package dev.agentauth.server;

import static dev.agentauth.server.CheckFixtures.authorizeScopes;
import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.server.ServerHarness.Resp;
import dev.agentauth.server.http.ReceiptGate;
import dev.agentauth.server.signing.SigningService;
import dev.agentauth.server.store.MemoryStore;
import dev.agentauth.server.store.Store;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The receipt gate over HTTP: checks and new authorizations of all workspaces take turns at a
 * bounded number of permits. A queued request holds no request thread, other workspaces are served
 * in turn, the queue's bounds answer 429 or 503 with {@code Retry-After} at once, a request queued
 * too long is answered 503, a queued request's failure is the same problem as an inline one's, and
 * {@code wait=true} still answers signed receipts, without holding a permit while it waits.
 */
class ReceiptGateIT {
  private static final String BUSY = "ws_local";
  private static final String SIGNER_THREAD = "agentauth-signer";

  /**
   * A memory store whose grouped transactions (checks) of {@link #BUSY} wait while {@link #checks}
   * is held, whose signer transactions wait while {@link #signer} is held, and which notes the
   * workspace of every grouped transaction in the order they run.
   */
  static final class GatedStore implements Store {
    private final MemoryStore delegate = new MemoryStore();
    volatile CountDownLatch checks = new CountDownLatch(0);
    volatile CountDownLatch signer = new CountDownLatch(0);
    final AtomicInteger checksHeld = new AtomicInteger();
    final List<String> checkOrder = Collections.synchronizedList(new ArrayList<>());

    @Override
    public <T> T inGroupedTransaction(GroupKey key, CheckWork<T> work) {
      CountDownLatch gate = checks;
      if (key.workspaceId().equals(BUSY) && gate.getCount() > 0) {
        checksHeld.incrementAndGet();
        await(gate);
      }
      checkOrder.add(key.workspaceId());
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
  private final ExecutorService clients = Executors.newFixedThreadPool(48);
  private ServerHarness h;
  private String busyKey;
  private String busyAuth;

  @AfterEach
  void stop() throws InterruptedException {
    store.checks.countDown();
    store.signer.countDown();
    if (h != null) {
      h.close();
    }
    clients.shutdownNow();
    assertThat(clients.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
  }

  private void start(AgentAuthServer.Builder builder) {
    h = ServerHarness.start(builder.store(store));
    busyKey = h.apiKey();
    busyAuth = authorizeScopes(h, "crm.read");
  }

  private static ReceiptGate.Limits limits(
      int inFlight, int perWorkspace, long queuedBytes, Duration timeout) {
    return new ReceiptGate.Limits(inFlight, perWorkspace, 1 << 20, queuedBytes, timeout);
  }

  private ReceiptGate gate() {
    return h.server.receiptGate();
  }

  private static String checkBody(String authorizationId) {
    return "{\"authorization_id\":\"" + authorizationId + "\",\"scopes\":[\"crm.read\"]}";
  }

  private CompletableFuture<Resp> sendAsync(String key, String path, String body) {
    return CompletableFuture.supplyAsync(() -> h.send("POST", path, body, key, Map.of()), clients);
  }

  private CompletableFuture<Resp> checkAsync(String key, String path, String authorizationId) {
    return sendAsync(key, path, checkBody(authorizationId));
  }

  private static void awaitValue(String what, IntSupplier n, int value)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (n.getAsInt() < value) {
      assertThat(System.nanoTime())
          .as("waiting for %s to reach %d", what, value)
          .isLessThan(deadline);
      java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
    }
  }

  /**
   * Holds the only permit with a check of the busy workspace that waits in the store, and returns
   * its answer to come.
   */
  private CompletableFuture<Resp> holdThePermit() throws InterruptedException {
    store.checks = new CountDownLatch(1);
    CompletableFuture<Resp> held = checkAsync(busyKey, "/v1/check", busyAuth);
    awaitValue("checks held in the store", store.checksHeld::get, 1);
    assertThat(gate().inFlight()).isEqualTo(1);
    return held;
  }

  @Test
  void queuedChecksHoldNoRequestThreadAndAnotherWorkspaceIsServedInTurn() throws Exception {
    // 12 request threads: 30 queued requests that each held one could not all reach the gate.
    start(AgentAuthServer.builder().requestThreads(12).checksInFlight(1));
    String otherKey = h.newWorkspace("ws_other", "pro");
    h.useApiKey(otherKey);
    String otherAuth = authorizeScopes(h, "crm.read");
    h.useApiKey(busyKey);

    CompletableFuture<Resp> held = holdThePermit();
    List<CompletableFuture<Resp>> queued = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      queued.add(checkAsync(busyKey, "/v1/check", busyAuth));
    }
    awaitValue("the busy workspace's queued checks", () -> gate().queued(BUSY), 30);
    CompletableFuture<Resp> other = checkAsync(otherKey, "/v1/check", otherAuth);
    awaitValue("all queued checks", gate()::queued, 31);

    // The server still answers: no request thread waits in the queue.
    long started = System.nanoTime();
    Resp health = h.send("GET", "/healthz", null, null, Map.of());
    assertThat(health.status()).isEqualTo(200);
    Resp metrics = h.send("GET", "/metrics", null, null, Map.of());
    assertThat(metrics.raw()).contains("agentauth_checks_queued 31.0");
    assertThat(metrics.raw()).contains("agentauth_checks_in_flight 1.0");
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
    assertThat(held).isNotDone();
    assertThat(queued).noneMatch(CompletableFuture::isDone);

    store.checks.countDown();
    Resp otherAnswer = other.get(20, TimeUnit.SECONDS);
    assertThat(otherAnswer.status()).as(otherAnswer.raw()).isEqualTo(200);
    assertThat(held.get(20, TimeUnit.SECONDS).status()).isEqualTo(200);
    for (CompletableFuture<Resp> f : queued) {
      Resp r = f.get(20, TimeUnit.SECONDS);
      assertThat(r.status()).as(r.raw()).isEqualTo(200);
    }
    // The held check ran first; the other workspace's was the second or third of the queue's to
    // run (the busy workspace's turn came first, or the other's), not the 31st.
    List<String> order = new ArrayList<>(store.checkOrder);
    int otherAt = order.indexOf("ws_other");
    assertThat(otherAt).as("order of checks: %s", order).isBetween(1, 3);
    assertThat(order).hasSize(32);
    assertThat(gate().queued()).isZero();
    assertThat(gate().inFlight()).isZero();
    assertThat(h.send("GET", "/metrics", null, null, Map.of()).raw())
        .contains("agentauth_checks_queue_wait_seconds_count");
  }

  @Test
  void aFullWorkspaceQueueIs429AtOnceAndTheQueuedBytesOfAll503() throws Exception {
    String body = "{\"authorization_id\":\"auth_00000000000000000000000000\",\"scopes\":[\"a\"]}";
    // Two queued bodies of this size fit in the bytes of all, a third does not.
    start(
        AgentAuthServer.builder()
            .receiptGate(limits(1, 2, 2L * body.length() + 10, Duration.ofSeconds(30))));
    String otherKey = h.newWorkspace("ws_other", "pro");

    CompletableFuture<Resp> held = holdThePermit();
    List<CompletableFuture<Resp>> queued = new ArrayList<>();
    queued.add(sendAsync(busyKey, "/v1/check", body));
    queued.add(sendAsync(busyKey, "/v1/check", body));
    awaitValue("queued checks", gate()::queued, 2);

    long started = System.nanoTime();
    Resp full = h.send("POST", "/v1/check", body, busyKey, Map.of());
    assertThat(full.status()).as(full.raw()).isEqualTo(429);
    assertThat(full.code()).isEqualTo("rate_limited");
    assertThat(full.header("Retry-After")).isEqualTo("1");
    assertThat(full.body().path("detail").asText()).contains("waiting to run");
    // New authorizations take their turn at the same gate.
    Resp authorization =
        h.send(
            "POST",
            "/v1/authorizations",
            "{\"user_id\":\"u1\",\"agent_id\":\"a1\",\"scopes\":[{\"name\":\"x\"}],"
                + "\"expires_at\":\"2027-01-01T00:00:00Z\"}",
            busyKey,
            Map.of());
    assertThat(authorization.status()).as(authorization.raw()).isEqualTo(429);

    // Another workspace's queue is empty, but the bytes of all are at their bound.
    Resp all = h.send("POST", "/v1/check", body, otherKey, Map.of());
    assertThat(all.status()).as(all.raw()).isEqualTo(503);
    assertThat(all.code()).isEqualTo("unavailable");
    assertThat(all.header("Retry-After")).isEqualTo("1");
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
    assertThat(gate().refusedWorkspace()).isEqualTo(2);
    assertThat(gate().refusedAll()).isEqualTo(1);

    // Released, everything is answered and the server takes checks again.
    store.checks.countDown();
    assertThat(held.get(20, TimeUnit.SECONDS).status()).isEqualTo(200);
    for (CompletableFuture<Resp> f : queued) {
      // An unknown authorization: denied.
      Resp r = f.get(20, TimeUnit.SECONDS);
      assertThat(r.status()).as(r.raw()).isEqualTo(200);
      assertThat(r.body().path("results").path("a").path("reason").asText())
          .isEqualTo("authorization_not_found");
    }
    Resp after = h.send("POST", "/v1/check", checkBody(busyAuth), busyKey, Map.of());
    assertThat(after.status()).as(after.raw()).isEqualTo(200);
  }

  @Test
  void aCheckQueuedPastTheTimeoutIs503AndIsNeverDecided() throws Exception {
    start(AgentAuthServer.builder().receiptGate(limits(1, 10, 1 << 20, Duration.ofMillis(500))));
    CompletableFuture<Resp> held = holdThePermit();

    long started = System.nanoTime();
    Resp late = h.send("POST", "/v1/check", checkBody(busyAuth), busyKey, Map.of());
    long waitedMillis = Duration.ofNanos(System.nanoTime() - started).toMillis();
    assertThat(late.status()).as(late.raw()).isEqualTo(503);
    assertThat(late.code()).isEqualTo("unavailable");
    assertThat(late.header("Retry-After")).isEqualTo("1");
    assertThat(late.body().path("detail").asText()).contains("waited 500 ms");
    assertThat(late.body().path("request_id").asText()).isEqualTo(late.header("X-Request-Id"));
    assertThat(waitedMillis).isGreaterThanOrEqualTo(450);
    assertThat(gate().timedOut()).isEqualTo(1);

    store.checks.countDown();
    assertThat(held.get(20, TimeUnit.SECONDS).status()).isEqualTo(200);
    // Only the held check was decided.
    assertThat(CheckFixtures.receipts(h, "authorization_id=" + busyAuth + "&scope=crm.read"))
        .hasSize(1);
  }

  @Test
  void aQueuedRequestsFailureIsTheSameProblemAsAnInlineOnes() throws Exception {
    start(AgentAuthServer.builder().checksInFlight(1));
    String noScopes = "{\"authorization_id\":\"" + busyAuth + "\",\"scopes\":[]}";
    String notJson = "{\"authorization_id\":";
    String badAuthorization = "{\"user_id\":\"u1\",\"scopes\":[{\"name\":\"x\"}]}";
    // An Idempotency-Key used with another body: refused inside the store transaction.
    Map<String, String> key = Map.of("Idempotency-Key", "gate-key-1");
    Resp first = h.send("POST", "/v1/check", checkBody(busyAuth), busyKey, key);
    assertThat(first.status()).as(first.raw()).isEqualTo(200);
    String otherBody = "{\"authorization_id\":\"" + busyAuth + "\",\"scopes\":[\"x\"]}";

    CompletableFuture<Resp> held = holdThePermit();
    List<CompletableFuture<Resp>> queued =
        List.of(
            sendAsync(busyKey, "/v1/check", noScopes),
            sendAsync(busyKey, "/v1/check", notJson),
            sendAsync(busyKey, "/v1/authorizations", badAuthorization),
            CompletableFuture.supplyAsync(
                () -> h.send("POST", "/v1/check", otherBody, busyKey, key), clients));
    awaitValue("queued requests", gate()::queued, 4);
    store.checks.countDown();
    assertThat(held.get(20, TimeUnit.SECONDS).status()).isEqualTo(200);

    List<Resp> fromQueue = new ArrayList<>();
    for (CompletableFuture<Resp> f : queued) {
      fromQueue.add(f.get(20, TimeUnit.SECONDS));
    }
    assertThat(gate().admittedAfterWait()).isGreaterThanOrEqualTo(4);
    List<Resp> inline =
        List.of(
            h.send("POST", "/v1/check", noScopes, busyKey, Map.of()),
            h.send("POST", "/v1/check", notJson, busyKey, Map.of()),
            h.send("POST", "/v1/authorizations", badAuthorization, busyKey, Map.of()),
            h.send("POST", "/v1/check", otherBody, busyKey, key));
    assertThat(fromQueue.stream().map(Resp::status)).containsExactly(400, 400, 400, 409);
    for (int i = 0; i < inline.size(); i++) {
      Resp q = fromQueue.get(i);
      Resp now = inline.get(i);
      assertThat(q.status()).as(q.raw()).isEqualTo(now.status());
      assertThat(q.header("Content-Type")).isEqualTo("application/problem+json");
      assertThat(q.header("Content-Type")).isEqualTo(now.header("Content-Type"));
      assertThat(q.code()).isEqualTo(now.code());
      assertThat(q.fields()).isEqualTo(now.fields());
      assertThat(q.body().path("detail")).isEqualTo(now.body().path("detail"));
      assertThat(q.body().path("request_id").asText()).isEqualTo(q.header("X-Request-Id"));
    }
  }

  @Test
  void waitTrueAnswersSignedReceiptsInlineAndAfterQueueing() throws Exception {
    start(AgentAuthServer.builder().checksInFlight(1));
    Resp inline = h.send("POST", "/v1/check?wait=true", checkBody(busyAuth), busyKey, Map.of());
    assertThat(inline.status()).as(inline.raw()).isEqualTo(200);
    assertThat(inline.body().path("results").path("crm.read").path("receipt").has("signature"))
        .isTrue();

    CompletableFuture<Resp> held = holdThePermit();
    CompletableFuture<Resp> queued = checkAsync(busyKey, "/v1/check?wait=true", busyAuth);
    awaitValue("queued checks", gate()::queued, 1);
    store.checks.countDown();
    assertThat(held.get(20, TimeUnit.SECONDS).status()).isEqualTo(200);
    Resp signed = queued.get(20, TimeUnit.SECONDS);
    assertThat(signed.status()).as(signed.raw()).isEqualTo(200);
    assertThat(signed.body().path("results").path("crm.read").path("receipt").has("signature"))
        .isTrue();
    // The held check did not wait for its signature: its receipt may be signed a batch later.
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (h.server.signingBacklog() != 0) {
      assertThat(System.nanoTime()).as("every receipt signed").isLessThan(deadline);
      java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
    }
  }

  @Test
  void aCheckWaitingForItsSignaturesHoldsNoPermitNorThread() throws Exception {
    // Sixteen may wait for signatures, with 12 request threads: if each wait held a thread, they
    // could not all wait at once.
    start(
        AgentAuthServer.builder()
            .requestThreads(12)
            .checksInFlight(1)
            .signingLimits(new SigningService.Limits(16_384, 64L << 20, 50_000, 5_000, 16, 64)));
    store.signer = new CountDownLatch(1);
    List<CompletableFuture<Resp>> waiting = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      waiting.add(checkAsync(busyKey, "/v1/check?wait=true", busyAuth));
    }
    awaitValue("waits for signatures", () -> h.server.signingWaits(), 16);

    // Another check is answered at once: the waits hold neither the permit nor the threads.
    for (int i = 0; i < 8; i++) {
      long started = System.nanoTime();
      Resp next = h.send("POST", "/v1/check", checkBody(busyAuth), busyKey, Map.of());
      assertThat(next.status()).as(next.raw()).isEqualTo(200);
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
    }
    assertThat(waiting).noneMatch(CompletableFuture::isDone);

    store.signer.countDown();
    for (CompletableFuture<Resp> f : waiting) {
      Resp signed = f.get(20, TimeUnit.SECONDS);
      assertThat(signed.status()).as(signed.raw()).isEqualTo(200);
      assertThat(signed.body().path("results").path("crm.read").path("receipt").has("signature"))
          .isTrue();
    }
  }
}
