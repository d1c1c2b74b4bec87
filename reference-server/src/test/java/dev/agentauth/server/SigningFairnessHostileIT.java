package dev.agentauth.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentauth.server.HostileServer.Tally;
import dev.agentauth.server.ServerHarness.Resp;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 25, items 3 and 4, against the server jar with {@code -Xmx768m}: an attacker's {@code
 * wait=true} checks do not park the request threads, and its flood of large receipts does not delay
 * another workspace's signatures. Every one of the bystander's checks is answered 200, and its
 * wait=true checks come back signed; its check p99 is held to {@link #BYSTANDER_P99_UNDER_FLOOD}.
 */
class SigningFairnessHostileIT {
  private static final String ATTACKER_KEY = HostileServer.ATTACKER_KEY;

  /**
   * Every connection of this test comes from 127.0.0.1, so the per-address connection cap (64),
   * which SlowClientsIT tests, would close the attacker's 300 connections before they reach the
   * request threads this test is about: it is lifted here.
   */
  private static final String[] ONE_ADDRESS = {"--max-connections-per-address", "0"};

  private static final String HEAP = "-Xmx768m";

  /**
   * Both attacks here are floods of valid checks (300 connections of one-scope checks; 24 of
   * twenty-scope checks with 16 KiB contexts), which the server admits and works through in fair
   * turns (--checks-in-flight). Measured on a quiet 2-core machine with the default 8 permits
   * (benchmarks/README.md, "Fair turns"): bystander p99 142-182 ms under the wait=true flood
   * (590-772 ms before turns) and 312-562 ms under the heavy one (328-405 ms before; issue 25's 250
   * ms is met there with 4 permits only). The test's own client shares the two cores with the
   * server, and CI machines vary, so the bound here tells a slowed bystander from a stalled one
   * (before round 2, bystander p99 was 4.0 s in the review's wait=true attack, and every request
   * timed out under slow bodies) rather than holding the 250 ms target.
   */
  private static final Duration BYSTANDER_P99_UNDER_FLOOD = Duration.ofSeconds(2);

  private static final Duration ATTACK = Duration.ofSeconds(8);

  private static final List<String> TWENTY_SCOPES =
      IntStream.range(0, 20).mapToObj(s -> "{\"name\":\"s" + s + "\"}").toList();
  private static final String TWENTY_NAMES =
      String.join(",", IntStream.range(0, 20).mapToObj(s -> "\"s" + s + "\"").toList());

  @TempDir Path work;

  private HostileServer hostile;

  @AfterEach
  void stop() {
    if (hostile != null) {
      hostile.close();
    }
  }

  /** A check of twenty scopes with a 16 KiB context: twenty receipts of 16 KiB each. */
  private String heavyCheck() throws Exception {
    String id = hostile.authorize(ATTACKER_KEY, TWENTY_SCOPES.toArray(String[]::new));
    String pad = "x".repeat(16 * 1024 - 64);
    return "{\"authorization_id\":\"%s\",\"scopes\":[%s],\"context\":{\"pad\":\"%s\"}}"
        .formatted(id, TWENTY_NAMES, pad);
  }

  /** {@code connections} loops sending {@code path} with {@code body} until the attack ends. */
  private List<Callable<Void>> loops(
      int connections, String path, String body, long deadline, Tally tally) {
    List<Callable<Void>> loops = new ArrayList<>();
    for (int t = 0; t < connections; t++) {
      loops.add(
          () -> {
            while (System.nanoTime() < deadline) {
              long start = System.nanoTime();
              try {
                Resp r = hostile.send("POST", path, body, ATTACKER_KEY);
                tally.record(System.nanoTime() - start, r.status());
              } catch (IOException e) {
                tally.unexpected.add(e.toString());
                tally.record(System.nanoTime() - start, -1);
              }
            }
            return null;
          });
    }
    return loops;
  }

  /** Whether a check answer's receipt came back signed (it has a signature, no status). */
  private static boolean signed(JsonNode check) {
    JsonNode receipt = check.path("results").path("crm.read").path("receipt");
    return receipt.has("signature") && !receipt.has("status");
  }

  /**
   * Item 3: while the attacker's heavy checks keep a signing backlog, 300 connections of its
   * one-scope {@code wait=true} checks are answered at once (pending) beyond the few that may wait,
   * and hold no more than those few request threads.
   */
  @Test
  void waitTrueChecksOfOneWorkspaceDoNotParkTheRequestThreads() throws Exception {
    hostile = HostileServer.start(work, HEAP, ONE_ADDRESS);
    String heavy = heavyCheck();
    String id = hostile.authorize(ATTACKER_KEY, "{\"name\":\"crm.read\"}");
    String light = "{\"authorization_id\":\"%s\",\"scopes\":[\"crm.read\"]}".formatted(id);
    Tally flood = new Tally();
    Tally waits = new Tally();
    long deadline = System.nanoTime() + ATTACK.toNanos();
    List<Callable<Void>> loads = new ArrayList<>(loops(8, "/v1/check", heavy, deadline, flood));
    loads.addAll(loops(300, "/v1/check?wait=true", light, deadline, waits));

    Tally victim = hostile.whileRunning(ATTACK, loads);

    System.out.println(
        "wait=true flood: heavy " + flood + "; waits " + waits + "; victim: " + victim);
    assertThat(waits.statuses.keySet()).as("waits: %s", waits).isSubsetOf(200, 429, 503);
    assertThat(waits.statuses.get(200)).as("waits: %s", waits).isNotNull();
    assertThat(flood.statuses.keySet()).as("flood: %s", flood).isSubsetOf(200, 429, 503);
    // A wait may last its 5 s, so the attacker's answers are not held to HostileServer's bound.
    hostile.assertBystanderServed(
        victim, BYSTANDER_P99_UNDER_FLOOD, "waits: " + waits + "; victim: " + victim);
    assertRecovers();
  }

  /**
   * Item 4: twenty-four connections of twenty-scope checks with 16 KiB contexts keep the attacker's
   * receipts coming faster than they are signed; the bystander's {@code wait=true} checks still
   * come back signed, and its checks keep their p99.
   */
  @Test
  void anotherWorkspacesFloodDoesNotDelayTheBystandersSignatures() throws Exception {
    hostile = HostileServer.start(work, HEAP, ONE_ADDRESS);
    String heavy = heavyCheck();
    Tally flood = new Tally();
    long deadline = System.nanoTime() + ATTACK.toNanos();
    List<Callable<Void>> loads = new ArrayList<>(loops(24, "/v1/check", heavy, deadline, flood));
    AtomicInteger signedWaits = new AtomicInteger();
    List<String> waitAnswers = new ArrayList<>();
    long[] backlogAtWaits = new long[1];
    loads.add(
        () -> {
          // Once the attacker has a backlog of its own (or is held back), eight wait=true checks.
          long latest = System.nanoTime() + ATTACK.toNanos() / 2;
          long backlog = 0;
          while (!flood.statuses.containsKey(503)
              && backlog < 1_000
              && System.nanoTime() < latest) {
            backlog = (long) metric("agentauth_signing_backlog");
          }
          backlogAtWaits[0] = (long) metric("agentauth_signing_backlog");
          for (int i = 0; i < 8; i++) {
            Resp r =
                hostile.send(
                    "POST",
                    "/v1/check?wait=true",
                    "{\"authorization_id\":\"%s\",\"scopes\":[\"crm.read\"]}"
                        .formatted(hostile.victimAuthorization),
                    hostile.victimKey);
            synchronized (waitAnswers) {
              waitAnswers.add(r.status() + " " + r.raw());
            }
            if (r.status() == 200 && signed(r.body())) {
              signedWaits.incrementAndGet();
            }
          }
          return null;
        });

    Tally victim = hostile.whileRunning(ATTACK, loads);

    System.out.println(
        "heavy flood: "
            + flood
            + "; backlog when the bystander's waits began "
            + backlogAtWaits[0]);
    assertThat(waitAnswers).hasSize(8).allMatch(a -> a.startsWith("200 "));
    assertThat(signedWaits.get()).as("signed wait=true answers: %s", waitAnswers).isGreaterThan(6);
    hostile.assertSurvived(flood, victim, BYSTANDER_P99_UNDER_FLOOD, 200, 429, 503);
    assertRecovers();
  }

  /** An unlabelled metric's value from {@code /metrics}. */
  private double metric(String name) throws Exception {
    Resp r = hostile.send("GET", "/metrics", null, null);
    for (String line : r.raw().split("\n")) {
      if (line.startsWith(name + " ")) {
        return Double.parseDouble(line.substring(name.length() + 1).trim());
      }
    }
    throw new AssertionError(name + " not in /metrics");
  }

  /**
   * Once the attack stops, the backlog drains by itself and a wait=true check comes back signed.
   */
  private void assertRecovers() throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (true) {
      Resp r =
          hostile.send(
              "POST",
              "/v1/check?wait=true",
              "{\"authorization_id\":\"%s\",\"scopes\":[\"crm.read\"]}"
                  .formatted(hostile.victimAuthorization),
              hostile.victimKey);
      assertThat(r.status()).as(r.raw()).isEqualTo(200);
      Resp attacker =
          hostile.send(
              "POST",
              "/v1/check",
              "{\"authorization_id\":\"%s\",\"scopes\":[\"crm.read\"]}"
                  .formatted(hostile.victimAuthorization),
              ATTACKER_KEY);
      // The attacker's key does not see the bystander's authorization: once the attacker is
      // admitted again (no 503), its check is answered 200 with authorization_not_found.
      if (signed(r.body()) && attacker.status() == 200) {
        return;
      }
      assertThat(System.nanoTime()).as("recovered within a minute").isLessThan(deadline);
    }
  }
}
