package dev.agentauth.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.CheckParams;
import dev.agentauth.client.FallbackPolicy;
import dev.agentauth.model.CheckResponse;
import dev.agentauth.server.HostileServer.Tally;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 25 item 1 under hostile load: clients that send their request bodies a byte at a time, or
 * hold connections open and send nothing, against the server jar with {@code -Xmx768m}, while the
 * bystander workspace checks. Attackers connect from other loopback addresses ({@code 127.0.1.x}),
 * as distinct clients would, so the per-address limit (64) applies to them and not to the bystander
 * on 127.0.0.1.
 */
class SlowClientsIT {
  private static final Duration ATTACK = Duration.ofSeconds(8);

  @TempDir Path work;

  /** A socket from loopback address {@code 127.0.1.<host>} to the server. */
  private static Socket connect(int host, int port) throws IOException {
    Socket s = new Socket();
    s.bind(new InetSocketAddress("127.0.1." + host, 0));
    s.connect(new InetSocketAddress("127.0.0.1", port), 2_000);
    return s;
  }

  /** The head of attack request {@code i}: five shapes in turn, each announcing a body. */
  private static String head(int i, String key) {
    String[] shape =
        switch (i % 5) {
          case 0 -> new String[] {"/nowhere", null, "8000000"};
          case 1 -> new String[] {"/v1/check", null, "8000000"};
          case 2 -> new String[] {"/v1/check", key, "8000000"};
          case 3 -> new String[] {"/v1/check", key, "1000"};
          default -> new String[] {"/v1/authorizations", key, "1500000"};
        };
    return "POST "
        + shape[0]
        + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
        + (shape[1] == null ? "" : "Authorization: Bearer " + shape[1] + "\r\n")
        + "Content-Length: "
        + shape[2]
        + "\r\n\r\n{";
  }

  /**
   * {@code connections} slow-body attackers for {@link #ATTACK}: each sends a head announcing a
   * body and then one body byte per tick (300 ms); when the server has closed its connection, it
   * opens another and starts again. Returns how many connections were opened in all.
   */
  private static Callable<Void> slowBodies(
      HostileServer s, int connections, AtomicInteger opened, List<String> failures) {
    return () -> {
      Socket[] sockets = new Socket[connections];
      ScheduledExecutorService ticker = Executors.newScheduledThreadPool(2);
      CountDownLatch done = new CountDownLatch(1);
      long deadline = System.nanoTime() + ATTACK.toNanos();
      try {
        ticker.scheduleAtFixedRate(
            () -> {
              if (System.nanoTime() > deadline) {
                done.countDown();
                return;
              }
              for (int i = 0; i < connections; i++) {
                try {
                  if (sockets[i] == null || sockets[i].isClosed()) {
                    try {
                      sockets[i] = connect(1 + i / 50, s.port());
                    } catch (IOException e) {
                      failures.add(e.toString());
                      continue;
                    }
                    opened.incrementAndGet();
                    sockets[i]
                        .getOutputStream()
                        .write(
                            head(i, HostileServer.ATTACKER_KEY).getBytes(StandardCharsets.UTF_8));
                  } else {
                    sockets[i].getOutputStream().write(' ');
                  }
                  sockets[i].getOutputStream().flush();
                } catch (IOException e) {
                  // the server ended it (as it should): open another next tick
                  closeQuietly(sockets[i]);
                }
              }
            },
            0,
            300,
            TimeUnit.MILLISECONDS);
        done.await(ATTACK.toSeconds() + 30, TimeUnit.SECONDS);
      } finally {
        ticker.shutdownNow();
        ticker.awaitTermination(10, TimeUnit.SECONDS);
        for (Socket socket : sockets) {
          closeQuietly(socket);
        }
      }
      return null;
    };
  }

  private static void closeQuietly(Socket s) {
    if (s != null) {
      try {
        s.close();
      } catch (IOException ignored) {
        // closing
      }
    }
  }

  /**
   * A bystander client that checks a scope its user never granted, with {@code fail_open}: while
   * the server answers within the client's 1 s check timeout, that is a deny every time, never the
   * fallback's allow.
   */
  private static Callable<Void> failOpenChecks(HostileServer s, List<String> decisions) {
    AgentAuthClient client =
        AgentAuthClient.builder()
            .baseUrl(s.base)
            .apiKey(s.victimKey)
            .allowInsecureHttp(true)
            .checkTimeout(Duration.ofSeconds(1))
            .fallback(FallbackPolicy.failOpen())
            .build();
    // Warmed up before the attack: the client's first call loads its classes, which on a loaded
    // machine can take longer than its 1 s check timeout by itself.
    for (int i = 0; i < 5; i++) {
      client.check(CheckParams.of(s.victimAuthorization, "crm.write"));
    }
    return () -> {
      long deadline = System.nanoTime() + ATTACK.toNanos();
      while (System.nanoTime() < deadline) {
        CheckResponse r = client.check(CheckParams.of(s.victimAuthorization, "crm.write"));
        var result = r.results().get("crm.write");
        decisions.add(result.decision().value() + "/" + result.reason().value());
      }
      return null;
    };
  }

  @Test
  void slowBodiesOfAnyPathWithOrWithoutAKeyHoldNoThreadTheBystanderNeeds() throws Exception {
    try (HostileServer s = HostileServer.start(work, "-Xmx768m")) {
      AtomicInteger opened = new AtomicInteger();
      List<String> failures = Collections.synchronizedList(new ArrayList<>());
      List<String> decisions = Collections.synchronizedList(new ArrayList<>());
      Tally victim =
          s.whileRunning(
              ATTACK, List.of(slowBodies(s, 250, opened, failures), failOpenChecks(s, decisions)));
      String report = "victim: " + victim + "; attacker connections opened: " + opened;
      System.out.println("slow bodies " + report);
      assertThat(opened.get()).as(report).isGreaterThanOrEqualTo(250);
      assertThat(failures).as("attacker connects refused: " + report).isEmpty();
      s.assertBystanderServed(victim, HostileServer.BYSTANDER_P99, report);
      assertThat(victim.percentile(1.0)).as(report).isLessThan(Duration.ofSeconds(1));
      assertThat(decisions).as(report).isNotEmpty().allMatch(d -> d.startsWith("deny/"));
      // The attack over, fresh connections are served.
      assertThat(s.victimCheck().status()).isEqualTo(200);
      s.assertHealthy();
    }
  }

  @Test
  void thousandsOfIdleConnectionsLeaveTheBystanderServedAndAreClosedAfterTheHeadTimeout()
      throws Exception {
    try (HostileServer s = HostileServer.start(work, "-Xmx768m", "--header-timeout", "3")) {
      List<Socket> idle = new ArrayList<>();
      try {
        // 3,000 from 60 addresses, within the per-address limit; then 300 more from one address,
        // of which the server keeps 64.
        for (int i = 0; i < 3_000; i++) {
          idle.add(connect(1 + i / 50, s.port()));
        }
        for (int i = 0; i < 300; i++) {
          idle.add(connect(200, s.port()));
        }
        Tally victim =
            s.whileRunning(
                Duration.ofSeconds(5),
                List.of(
                    () -> {
                      // fresh connections of the bystander, one request each
                      for (int i = 0; i < 20; i++) {
                        try (Socket fresh = new Socket()) {
                          fresh.connect(new InetSocketAddress("127.0.0.1", s.port()), 1_000);
                          fresh.setSoTimeout(1_000);
                          fresh
                              .getOutputStream()
                              .write(
                                  ("GET /healthz HTTP/1.1\r\nHost: localhost\r\n"
                                          + "Connection: close\r\n\r\n")
                                      .getBytes(StandardCharsets.US_ASCII));
                          byte[] answer = fresh.getInputStream().readAllBytes();
                          assertThat(new String(answer, StandardCharsets.US_ASCII))
                              .startsWith("HTTP/1.1 200");
                        }
                      }
                      return null;
                    }));
        s.assertBystanderServed(victim, HostileServer.BYSTANDER_P99, "victim: " + victim);
        // Every idle connection is closed by the server: those past the per-address limit at
        // once, the others once the head timeout (3 s) passes without a request.
        long start = System.nanoTime();
        for (Socket socket : idle) {
          socket.setSoTimeout(10_000);
          assertThat(endOf(socket.getInputStream())).as("closed by the server").isTrue();
        }
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
      } finally {
        for (Socket socket : idle) {
          closeQuietly(socket);
        }
      }
      assertThat(s.victimCheck().status()).isEqualTo(200);
      s.assertHealthy();
    }
  }

  /** Whether the stream ends (or is reset) without the server sending anything. */
  private static boolean endOf(InputStream in) throws IOException {
    try {
      return in.read() == -1;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (java.net.SocketException reset) {
      return true;
    }
  }
}
