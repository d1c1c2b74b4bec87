package dev.agentauth.server;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntUnaryOperator;

/**
 * A webhook receiver on loopback (the JDK's HTTP server): records every request, answers with the
 * status {@code statusOfCall} gives for its 1-based number, and, when made slow, holds every
 * request until {@link #close()}.
 */
final class WebhookReceiver implements AutoCloseable {

  /** One request as received. */
  record Received(String signature, String eventId, String eventType, String body) {}

  private final HttpServer server;
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private final BlockingQueue<Received> received = new LinkedBlockingQueue<>();
  private final AtomicInteger calls = new AtomicInteger();
  private final IntUnaryOperator statusOfCall;
  private final CountDownLatch release = new CountDownLatch(1);
  private final int held;

  /** {@code held}: how many of the first requests are held until close (-1: every one). */
  private WebhookReceiver(IntUnaryOperator statusOfCall, int held) {
    this.statusOfCall = statusOfCall;
    this.held = held;
    try {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.setExecutor(threads);
    server.createContext("/", this::handle);
    server.start();
  }

  /** A receiver answering every request 204. */
  static WebhookReceiver ok() {
    return new WebhookReceiver(n -> 204, 0);
  }

  /** A receiver answering request {@code n} with {@code statusOfCall.applyAsInt(n)}. */
  static WebhookReceiver answering(IntUnaryOperator statusOfCall) {
    return new WebhookReceiver(statusOfCall, 0);
  }

  /** A receiver that holds every request (as one sleeping 30 s would) until closed. */
  static WebhookReceiver slow() {
    return new WebhookReceiver(n -> 204, -1);
  }

  /** A receiver that holds its first {@code n} requests until closed and answers the rest 204. */
  static WebhookReceiver holdingFirst(int n) {
    return new WebhookReceiver(k -> 204, n);
  }

  private void handle(HttpExchange x) throws IOException {
    int n = calls.incrementAndGet();
    byte[] body = x.getRequestBody().readAllBytes();
    received.add(
        new Received(
            x.getRequestHeaders().getFirst("AgentAuth-Signature"),
            x.getRequestHeaders().getFirst("AgentAuth-Event-Id"),
            x.getRequestHeaders().getFirst("AgentAuth-Event-Type"),
            new String(body, StandardCharsets.UTF_8)));
    if (held < 0 || n <= held) {
      try {
        release.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    x.sendResponseHeaders(statusOfCall.applyAsInt(n), -1);
    x.close();
  }

  /** The URL webhooks point at. */
  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/hook";
  }

  /** Requests received so far. */
  int calls() {
    return calls.get();
  }

  /** The next request, waiting at most {@code timeout}; null if none came. */
  Received next(Duration timeout) throws InterruptedException {
    return received.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** The next {@code n} requests, each waited for at most {@code timeout}; fails if one is late. */
  List<Received> take(int n, Duration timeout) throws InterruptedException {
    List<Received> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Received r = next(timeout);
      if (r == null) {
        throw new AssertionError(
            "request " + (i + 1) + " of " + n + " did not come within " + timeout);
      }
      out.add(r);
    }
    return out;
  }

  @Override
  public void close() {
    release.countDown();
    server.stop(0);
    threads.shutdownNow();
  }
}
