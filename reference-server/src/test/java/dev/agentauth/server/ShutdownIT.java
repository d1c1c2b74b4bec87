package dev.agentauth.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.server.ServerHarness.Resp;
import dev.agentauth.server.store.MemoryStore;
import dev.agentauth.server.store.Store;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Draining on shutdown ({@link AgentAuthServer#close()}, which SIGTERM runs): stop accepting,
 * finish in-flight requests, sign every pending receipt (decisions §12).
 */
class ShutdownIT {

  /** A memory store that holds the next request transaction until released. */
  private static final class GatedStore implements Store {
    final MemoryStore delegate = new MemoryStore();
    final AtomicBoolean armed = new AtomicBoolean();
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    @Override
    public <T> T inTransaction(Work<T> work) {
      if (Thread.currentThread().getName().startsWith("JettyServerThreadPool")
          && armed.compareAndSet(true, false)) {
        entered.countDown();
        try {
          assertThat(release.await(20, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
      }
      return delegate.inTransaction(work);
    }

    @Override
    public boolean isReachable() {
      return delegate.isReachable();
    }

    @Override
    public String describe() {
      return "gated";
    }

    @Override
    public void close() {
      delegate.close();
    }
  }

  private static boolean accepting(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  @Test
  void closeFinishesInFlightRequestsAndSignsTheirReceipts() throws Exception {
    GatedStore store = new GatedStore();
    try (ServerHarness h = ServerHarness.start(AgentAuthServer.builder().store(store))) {
      Resp created =
          h.post(
              "/v1/authorizations",
              h.json(
                  """
                  {"user_id":"u1","agent_id":"a1","scopes":[{"name":"s"}],
                   "expires_at":"2026-11-23T10:00:00Z"}"""));
      String id = created.body().path("authorization_id").asText();
      int port = h.server.port();

      store.armed.set(true);
      CompletableFuture<Resp> inFlight =
          CompletableFuture.supplyAsync(
              () ->
                  h.post("/v1/check", h.json("{\"scopes\":[\"s\"]}").put("authorization_id", id)));
      assertThat(store.entered.await(10, TimeUnit.SECONDS)).isTrue();

      CompletableFuture<Void> closing = CompletableFuture.runAsync(h.server::close);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (accepting(port) && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      assertThat(accepting(port)).as("no new connections while draining").isFalse();
      assertThat(closing).isNotDone();

      store.release.countDown();

      Resp r = inFlight.get(10, TimeUnit.SECONDS);
      assertThat(r.status()).as(r.raw()).isEqualTo(200);
      assertThat(r.body().at("/results/s/decision").asText()).isEqualTo("allow");
      closing.get(20, TimeUnit.SECONDS);
      assertThat(h.server.signingBacklog()).isZero();
    }
  }
}
