package dev.agentauth.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentauth.model.AgentAuthJson;
import dev.agentauth.server.http.ConnectionLimits;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Connections and request bodies (issue 25 items 1 and 12): no body byte is read before the caller
 * is known; a body announced too large is refused at once; a body that arrives too slowly is 408;
 * one workspace's arriving bodies and one address's connections are bounded; every answer that ends
 * the connection says {@code Connection: close}, and one that does not leaves it usable.
 */
class ConnectionsIT {
  private static final int MAX_BODY = 1024 * 1024;

  private ServerHarness h;
  private final List<Socket> sockets = new ArrayList<>();

  @AfterEach
  void stop() throws IOException {
    for (Socket s : sockets) {
      s.close();
    }
    if (h != null) {
      h.close();
    }
  }

  private void start(ConnectionLimits limits) {
    h = ServerHarness.start(AgentAuthServer.builder().connectionLimits(limits));
  }

  private void start() {
    start(ConnectionLimits.DEFAULT);
  }

  private int port() {
    return h.server.port();
  }

  /** A connection from loopback address {@code 127.0.1.<host>} (127.0.0.1 for host 0). */
  private Socket connect(int host) throws IOException {
    Socket s = new Socket();
    sockets.add(s);
    s.bind(new InetSocketAddress(host == 0 ? "127.0.0.1" : "127.0.1." + host, 0));
    s.connect(new InetSocketAddress("127.0.0.1", port()), 2_000);
    s.setSoTimeout(15_000);
    return s;
  }

  private static String head(String method, String path, String key, long length) {
    return method
        + " "
        + path
        + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
        + (key == null ? "" : "Authorization: Bearer " + key + "\r\n")
        + "Content-Length: "
        + length
        + "\r\n\r\n";
  }

  private static void send(Socket s, String text) throws IOException {
    s.getOutputStream().write(text.getBytes(StandardCharsets.UTF_8));
    s.getOutputStream().flush();
  }

  /** Reads one response off {@code s} (its head and Content-Length body). */
  private static RawHttp.Response read(Socket s) throws IOException {
    InputStream in = s.getInputStream();
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    while (matched < 4) {
      int b = in.read();
      if (b == -1) {
        throw new IOException("connection closed before a full response head: " + head);
      }
      head.write(b);
      matched = (b == "\r\n\r\n".charAt(matched)) ? matched + 1 : (b == '\r' ? 1 : 0);
    }
    RawHttp.Response parsedHead = RawHttp.parse(head.toByteArray(), true).get(0);
    String length = parsedHead.header("Content-Length");
    byte[] body = in.readNBytes(length == null ? 0 : Integer.parseInt(length));
    byte[] whole = new byte[head.size() + body.length];
    System.arraycopy(head.toByteArray(), 0, whole, 0, head.size());
    System.arraycopy(body, 0, whole, head.size(), body.length);
    return RawHttp.parse(whole, false).get(0);
  }

  /** Whether the server has closed {@code s} (end of stream or reset) within its read timeout. */
  private static boolean closedByServer(Socket s) throws IOException {
    try {
      return s.getInputStream().read() == -1;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (SocketException reset) {
      return true;
    }
  }

  private static String code(RawHttp.Response r) throws IOException {
    JsonNode body = AgentAuthJson.newObjectMapper().readTree(r.body());
    return body.path("code").asText();
  }

  private static void assertClosing(RawHttp.Response r) {
    assertThat(r.header("Connection")).as(r.text()).isEqualToIgnoringCase("close");
  }

  // ---- item 1: no body read before authentication; announced sizes; slow bodies

  @Test
  void aBodyIsNotWaitedForBeforeTheCallerIsKnown() throws IOException {
    start();
    String[][] cases = {
      {"/nowhere", null, "404", "not_found"},
      {"/v1/check", null, "401", "unauthenticated"},
      {"/v1/check", "sk_" + "x".repeat(43), "401", "unauthenticated"},
      {"/healthz", null, "405", "method_not_allowed"},
    };
    for (String[] c : cases) {
      Socket s = connect(0);
      // A body is announced and none of it is sent: the answer must not wait for it.
      send(s, head("POST", c[0], c[1], 1000));
      long start = System.nanoTime();
      RawHttp.Response r = read(s);
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
      assertThat(r.status()).as(c[0] + ": " + r.text()).isEqualTo(Integer.parseInt(c[2]));
      assertThat(code(r)).isEqualTo(c[3]);
      assertClosing(r);
      assertThat(closedByServer(s)).isTrue();
    }
  }

  @Test
  void aBodyAnnouncedOverTheDrainLimitIsRefusedAtOnceWhateverThePathOrKey() throws IOException {
    start();
    for (String path : List.of("/nowhere", "/v1/check", "/v1/authorizations/auth_x")) {
      for (String key : new String[] {null, h.apiKey()}) {
        Socket s = connect(0);
        send(s, head("POST", path, key, 8_000_000));
        RawHttp.Response r = read(s);
        assertThat(r.status()).as(path + ": " + r.text()).isEqualTo(413);
        assertThat(code(r)).isEqualTo("payload_too_large");
        assertClosing(r);
      }
    }
  }

  @Test
  void aBodyThatStopsArrivingIs408AndFreesTheConnection() throws IOException {
    start();
    Socket s = connect(0);
    send(s, head("POST", "/v1/check", h.apiKey(), 100) + "{");
    long start = System.nanoTime();
    RawHttp.Response r = read(s);
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertThat(r.status()).as(r.text()).isEqualTo(408);
    assertThat(code(r)).isEqualTo("request_timeout");
    assertThat(r.header("Content-Type")).startsWith("application/problem+json");
    assertClosing(r);
    // The minimum rate (1 KiB/s after a 2 s grace): answered at about 2 s, not at the idle timeout.
    assertThat(took).isBetween(Duration.ofMillis(1_500), Duration.ofSeconds(5));
  }

  @Test
  void aBodyTricklingInIs408OnceItFallsBelowTheMinimumRateOrPassesTheDeadline() throws Exception {
    // 1 KiB/s minimum: a byte every 100 ms is far below it.
    start(ConnectionLimits.DEFAULT);
    assertTrickleTimesOut(Duration.ofMillis(1_500), Duration.ofSeconds(5));
    h.close();
    // No minimum rate: the 3 s deadline ends it.
    start(
        new ConnectionLimits(
            100, 0, Duration.ofSeconds(30), Duration.ofSeconds(10), Duration.ofSeconds(3), 0));
    assertTrickleTimesOut(Duration.ofMillis(2_500), Duration.ofSeconds(6));
  }

  private void assertTrickleTimesOut(Duration atLeast, Duration atMost) throws Exception {
    Socket s = connect(0);
    send(s, head("POST", "/v1/check", h.apiKey(), 1000) + "{");
    ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor();
    try {
      ticker.scheduleAtFixedRate(
          () -> {
            try {
              send(s, " ");
            } catch (IOException e) {
              // closed by the server
            }
          },
          100,
          100,
          TimeUnit.MILLISECONDS);
      long start = System.nanoTime();
      RawHttp.Response r = read(s);
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      assertThat(r.status()).as(r.text()).isEqualTo(408);
      assertThat(code(r)).isEqualTo("request_timeout");
      assertClosing(r);
      assertThat(took).isBetween(atLeast, atMost);
    } finally {
      ticker.shutdownNow();
    }
  }

  @Test
  void oneWorkspaceHasAtMostSixteenBodiesArrivingAndOthersAreServedMeanwhile() throws Exception {
    start(
        new ConnectionLimits(
            1000, 0, Duration.ofSeconds(30), Duration.ofSeconds(10), Duration.ofSeconds(10), 0));
    List<Socket> held = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      Socket s = connect(0);
      send(s, head("POST", "/v1/check", h.apiKey(), 100) + "{");
      held.add(s);
    }
    // The 17th is refused at once; the first 16 are still waiting for their bodies. Polled: the
    // first 16 reach the body read in their own time.
    RawHttp.Response refused = null;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (refused == null && System.nanoTime() < deadline) {
      Socket s = connect(0);
      send(s, head("POST", "/v1/check", h.apiKey(), 100) + "{");
      s.setSoTimeout(300);
      try {
        refused = read(s);
      } catch (SocketTimeoutException stillHeld) {
        held.add(s);
      }
    }
    assertThat(refused).as("a 17th arriving body refused").isNotNull();
    assertThat(refused.status()).as(refused.text()).isEqualTo(429);
    assertThat(code(refused)).isEqualTo("rate_limited");
    assertThat(refused.header("Retry-After")).isEqualTo("1");
    assertClosing(refused);
    // At least the 16 sent first got no answer (one sent later may not have reached the body read
    // when it was probed, on a loaded machine).
    assertThat(held).hasSizeGreaterThanOrEqualTo(16);
    // Another workspace's bodies are read meanwhile.
    String other = h.newWorkspace("ws_other", "pro");
    ServerHarness.Resp r = h.send("POST", "/v1/check", "{}", other, java.util.Map.of());
    assertThat(r.status()).as(r.raw()).isEqualTo(400); // read and parsed, then invalid
  }

  @Test
  void connectionsBeyondThePerAddressLimitAreClosedAndOtherAddressesAreServed() throws Exception {
    start(
        new ConnectionLimits(
            1000, 4, Duration.ofSeconds(30), Duration.ofSeconds(10), Duration.ofSeconds(10), 1024));
    List<Socket> four = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      Socket s = connect(7);
      send(s, "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n");
      assertThat(read(s).status()).isEqualTo(200);
      four.add(s);
    }
    Socket fifth = connect(7);
    send(fifth, "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n");
    assertThat(closedByServer(fifth)).as("the fifth from one address is closed").isTrue();
    // Another address, and 127.0.0.1, are served.
    for (int host : new int[] {8, 0}) {
      Socket s = connect(host);
      send(s, "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n");
      assertThat(read(s).status()).isEqualTo(200);
    }
    // Once one of the four closes, the address may open another.
    four.get(0).close();
    assertThat(servedWithin(7, Duration.ofSeconds(5))).isTrue();
  }

  @Test
  void connectionsBeyondTheLimitAreClosedUntilOneCloses() throws IOException {
    start(
        new ConnectionLimits(
            3, 0, Duration.ofSeconds(30), Duration.ofSeconds(10), Duration.ofSeconds(10), 1024));
    List<Socket> three = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Socket s = connect(i + 1);
      send(s, "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n");
      assertThat(read(s).status()).isEqualTo(200);
      three.add(s);
    }
    Socket fourth = connect(4);
    send(fourth, "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n");
    assertThat(closedByServer(fourth)).as("a fourth connection is closed").isTrue();
    three.get(0).close();
    assertThat(servedWithin(4, Duration.ofSeconds(5))).isTrue();
  }

  /** Whether a new connection from {@code host} is served within {@code wait}. */
  private boolean servedWithin(int host, Duration wait) throws IOException {
    long deadline = System.nanoTime() + wait.toNanos();
    while (System.nanoTime() < deadline) {
      Socket s = connect(host);
      send(s, "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n");
      try {
        if (read(s).status() == 200) {
          return true;
        }
      } catch (IOException closed) {
        s.close();
      }
    }
    return false;
  }

  @Test
  void aConnectionThatSendsNoCompleteHeadIsClosedAfterTheHeadTimeout() throws IOException {
    start(
        new ConnectionLimits(
            1000, 0, Duration.ofSeconds(30), Duration.ofSeconds(1), Duration.ofSeconds(10), 1024));
    Socket silent = connect(0);
    Socket slow = connect(0);
    send(slow, "GET /healthz HTTP/1.1\r\n");
    long start = System.nanoTime();
    assertThat(closedByServer(silent)).isTrue();
    assertThat(closedByServer(slow)).isTrue();
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
  }

  // ---- item 12: every answer that ends the connection says so; unwanted bodies

  @Test
  void aMalformedPathIs400WithConnectionClose() {
    RawHttp raw;
    start();
    raw = new RawHttp(port());
    for (String path :
        List.of("/v1/authorizations/%zz", "/v1/authorizations/a;%u00e9", "/%C0%AF")) {
      List<RawHttp.Response> answers =
          raw.exchange(
              ("GET "
                      + path
                      + " HTTP/1.1\r\nHost: localhost\r\n\r\n"
                      + "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII),
              false);
      assertThat(answers).as(path).isNotEmpty();
      RawHttp.Response first = answers.get(0);
      assertThat(first.status()).as(path + ": " + first.text()).isEqualTo(400);
      if (answers.size() == 1) {
        assertClosing(first); // it ended the connection: it said so
      } else {
        assertThat(first.header("Connection")).as(path).isNull();
        assertThat(answers.get(1).status()).isEqualTo(200);
      }
    }
  }

  @Test
  void errorsThatKeepTheConnectionLeaveItUsable() {
    start();
    RawHttp raw = new RawHttp(port());
    String next = "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n";
    String[] first = {
      "GET /nowhere HTTP/1.1\r\nHost: localhost\r\n\r\n",
      "GET /v1/authorizations HTTP/1.1\r\nHost: localhost\r\n\r\n",
      "DELETE /v1/authorizations/auth_x HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer "
          + h.apiKey()
          + "\r\nContent-Length: 2\r\n\r\n{}",
    };
    for (String request : first) {
      List<RawHttp.Response> answers =
          raw.exchange((request + next).getBytes(StandardCharsets.US_ASCII), false);
      assertThat(answers).as(request).hasSize(2);
      assertThat(answers.get(0).header("Connection")).as(request).isNull();
      assertThat(answers.get(1).status()).isEqualTo(200);
    }
  }

  @Test
  void aDeleteWithAnUnwantedBodyIsAnsweredNotReset() {
    start();
    RawHttp raw = new RawHttp(port());
    String next = "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n";
    // Within the limit: read and ignored, answered, the connection kept.
    byte[] small = new byte[64 * 1024];
    java.util.Arrays.fill(small, (byte) ' ');
    List<RawHttp.Response> answers =
        raw.exchange(
            concat(
                head("DELETE", "/v1/authorizations/auth_x", h.apiKey(), small.length), small, next),
            false);
    assertThat(answers).hasSize(2);
    assertThat(answers.get(0).status()).as(answers.get(0).text()).isEqualTo(404);
    assertThat(answers.get(1).status()).isEqualTo(200);
    // Just over the limit: 413, answered (drained), the connection kept.
    byte[] big = new byte[MAX_BODY + 64 * 1024];
    java.util.Arrays.fill(big, (byte) ' ');
    answers =
        raw.exchange(
            concat(head("DELETE", "/v1/authorizations/auth_x", h.apiKey(), big.length), big, next),
            false);
    assertThat(answers).hasSize(2);
    assertThat(answers.get(0).status()).as(answers.get(0).text()).isEqualTo(413);
    assertThat(answers.get(1).status()).isEqualTo(200);
    // Without a key: not read, 401 with Connection: close.
    answers =
        raw.exchange(
            concat(head("DELETE", "/v1/authorizations/auth_x", null, big.length), big, next),
            false);
    assertThat(answers.get(0).status()).isEqualTo(401);
    assertClosing(answers.get(0));
  }

  private static byte[] concat(String head, byte[] body, String tail) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(head.getBytes(StandardCharsets.US_ASCII));
    out.writeBytes(body);
    out.writeBytes(tail.getBytes(StandardCharsets.US_ASCII));
    return out.toByteArray();
  }
}
