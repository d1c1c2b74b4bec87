package dev.agentauth.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.server.ServerHarness.Resp;
import dev.agentauth.server.fatal.FatalErrorPolicy;
import dev.agentauth.server.store.MemoryStore;
import dev.agentauth.server.store.Store;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code /healthz} and {@code /readyz} tell the truth about the server's own threads, and an Error
 * thrown while serving a request is answered 500 and handed to the fatal-error policy.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ServerLivenessTest {
  private Thread.UncaughtExceptionHandler previous;

  @BeforeEach
  void rememberHandler() {
    previous = Thread.getDefaultUncaughtExceptionHandler();
  }

  @AfterEach
  void restoreHandler() {
    Thread.setDefaultUncaughtExceptionHandler(previous);
  }

  /** A memory store whose liveness and reads the test controls. */
  static final class ControlledStore implements Store {
    final MemoryStore delegate = new MemoryStore();
    volatile boolean live = true;
    volatile Error readError;

    @Override
    public <T> T inTransaction(Work<T> work) {
      return delegate.inTransaction(work);
    }

    @Override
    public <T> T read(Work<T> work) {
      Error e = readError;
      if (e != null) {
        throw e;
      }
      return delegate.read(work);
    }

    @Override
    public boolean isReachable() {
      return delegate.isReachable();
    }

    @Override
    public boolean isLive() {
      return live;
    }

    @Override
    public String describe() {
      return "controlled";
    }

    @Override
    public void close() {
      delegate.close();
    }
  }

  @Test
  void healthzAndReadyzAnswer503WhileTheStoresWriterThreadIsDead() {
    ControlledStore store = new ControlledStore();
    try (ServerHarness h = ServerHarness.start(AgentAuthServer.builder().store(store))) {
      assertThat(h.send("GET", "/healthz", null, null, Map.of()).status()).isEqualTo(200);
      assertThat(h.send("GET", "/readyz", null, null, Map.of()).status()).isEqualTo(200);

      store.live = false;
      Resp health = h.send("GET", "/healthz", null, null, Map.of());
      assertThat(health.status()).isEqualTo(503);
      assertThat(health.header("Content-Type")).startsWith("application/problem+json");
      assertThat(health.code()).isEqualTo("not_live");
      assertThat(health.body().path("detail").asText()).contains("writer");
      Resp ready = h.send("GET", "/readyz", null, null, Map.of());
      assertThat(ready.status()).isEqualTo(503);
      assertThat(ready.code()).isEqualTo("not_ready");

      store.live = true;
      assertThat(h.send("GET", "/healthz", null, null, Map.of()).status()).isEqualTo(200);
    }
  }

  @Test
  void anOutOfMemoryErrorInAHandlerIsAnswered500AndHaltsThroughTheInstalledPolicy() {
    List<Integer> halted = new CopyOnWriteArrayList<>();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    new FatalErrorPolicy(halted::add, new PrintStream(err, true, StandardCharsets.UTF_8)).install();
    ControlledStore store = new ControlledStore();
    try (ServerHarness h = ServerHarness.start(AgentAuthServer.builder().store(store))) {
      store.readError = new OutOfMemoryError("simulated: Java heap space");
      Resp r = h.get("/v1/authorizations");
      assertThat(r.status()).isEqualTo(500);
      assertThat(r.code()).isEqualTo("internal_error");
      assertThat(r.raw()).doesNotContain("OutOfMemoryError");
      assertThat(halted).containsExactly(FatalErrorPolicy.EXIT_STATUS);
      assertThat(err.toString(StandardCharsets.UTF_8))
          .contains("FATAL")
          .contains("java.lang.OutOfMemoryError");
    }
  }

  @Test
  void withoutAPolicyAnErrorInAHandlerIsAnswered500AndTheServerGoesOn() {
    Thread.setDefaultUncaughtExceptionHandler(null);
    ControlledStore store = new ControlledStore();
    try (ServerHarness h = ServerHarness.start(AgentAuthServer.builder().store(store))) {
      store.readError = new StackOverflowError("simulated");
      assertThat(h.get("/v1/authorizations").status()).isEqualTo(500);
      store.readError = null;
      assertThat(h.get("/v1/authorizations").status()).isEqualTo(200);
    }
  }
}
