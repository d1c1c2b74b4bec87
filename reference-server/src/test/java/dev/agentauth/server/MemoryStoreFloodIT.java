package dev.agentauth.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.server.HostileServer.Tally;
import dev.agentauth.server.ServerHarness.Resp;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 25 item 8: {@code --store memory} under one agent key's flood of the largest checks (20
 * scopes, a 16 KiB context: about 20 × 33 KB of receipt text each) used to grow until an
 * OutOfMemoryError ended the process. The store is bounded now: it stays alive with {@code
 * -Xmx768m}, evicts its oldest receipts (visible in {@code /metrics} and in a WARN), the bystander
 * workspace keeps its check p99, and the server answers normally once the flood stops.
 */
class MemoryStoreFloodIT {
  private static final String HEAP = "-Xmx768m";
  private static final Duration FLOOD = Duration.ofSeconds(15);
  private static final int ATTACKERS = 8;

  @TempDir Path work;
  private HostileServer s;

  @AfterEach
  void stop() {
    if (s != null) {
      s.close();
    }
  }

  @Test
  void aFloodOfLargeChecksEvictsOldReceiptsInsteadOfExhaustingTheHeap() throws Exception {
    s = HostileServer.startOn("memory", work, HEAP);
    List<String> scopes = new ArrayList<>();
    List<String> entries = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      scopes.add("\"tool.s" + i + "\"");
      entries.add("{\"name\":\"tool.s" + i + "\"}");
    }
    String authorization = s.authorize(HostileServer.ATTACKER_KEY, entries.toArray(String[]::new));
    String agentKey =
        s.call("POST", "/v1/api-keys", "{\"role\":\"agent\"}", HostileServer.ATTACKER_KEY, 201)
            .path("api_key")
            .asText();
    String body =
        "{\"authorization_id\":\""
            + authorization
            + "\",\"scopes\":["
            + String.join(",", scopes)
            + "],\"context\":{\"pad\":\""
            + "x".repeat(16_000)
            + "\"}}";

    Tally attacker = new Tally();
    long deadline = System.nanoTime() + FLOOD.toNanos();
    List<Callable<Void>> loops = new ArrayList<>();
    for (int t = 0; t < ATTACKERS; t++) {
      loops.add(
          () -> {
            while (System.nanoTime() < deadline) {
              long start = System.nanoTime();
              try {
                Resp r = s.send("POST", "/v1/check", body, agentKey);
                attacker.record(System.nanoTime() - start, r.status());
              } catch (IOException e) {
                attacker.unexpected.add(e.toString());
                attacker.record(System.nanoTime() - start, -1);
              }
            }
            return null;
          });
    }
    Tally victim = s.whileRunning(FLOOD, loops);

    String metrics = s.send("GET", "/metrics", null, null).raw();
    long evicted = metric(metrics, "agentauth_memory_store_evicted_receipts_total");
    long held = metric(metrics, "agentauth_memory_store_bytes");
    long max = metric(metrics, "agentauth_memory_store_max_bytes");
    String report =
        "attacker: %s; victim: %s; evicted %d receipts; holding %d of %d bytes"
            .formatted(attacker, victim, evicted, held, max);
    System.out.println("memory store flood " + report);

    assertThat(attacker.statuses.keySet()).as(report).isSubsetOf(200, 429, 503);
    assertThat(attacker.statuses.get(200)).as(report).isNotNull();
    assertThat(evicted).as(report).isPositive();
    assertThat(held).as(report).isLessThanOrEqualTo(max);
    assertThat(s.server.stderr.toString()).contains("memory store full");
    s.assertBystanderServed(victim, HostileServer.BYSTANDER_P99, report);

    // Once the flood stops, the server answers as before: a bystander check, its receipt, and
    // the attacker's newest receipts are there.
    Resp after = s.victimCheck();
    assertThat(after.status()).as(after.raw()).isEqualTo(200);
    String receipt = after.body().at("/results/crm.read/receipt/receipt_id").asText();
    assertThat(s.send("GET", "/v1/receipts/" + receipt, null, s.victimKey).status()).isEqualTo(200);
  }

  /** The value of an unlabelled metric in Prometheus text. */
  private static long metric(String text, String name) {
    Matcher m = Pattern.compile("(?m)^" + name + "(?:\\{[^}]*\\})? ([0-9.eE+]+)$").matcher(text);
    assertThat(m.find()).as(name + " in " + text).isTrue();
    return (long) Double.parseDouble(m.group(1));
  }
}
