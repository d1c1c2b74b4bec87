package dev.agentauth.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.server.HostileServer.Tally;
import dev.agentauth.server.ServerHarness.Resp;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 25, item 5: one agent key must not fill the disk. The jar runs on SQLite with {@code
 * -Xmx768m} and a 4 MiB daily byte quota; the attacker sends twenty-scope checks with 16 KiB
 * contexts (about 340 KB of receipts each) from sixteen connections. It is answered 200 until its
 * quota is used, then 429 {@code quota_exceeded}; the database stays near the quota, and the
 * bystander workspace's checks all succeed within the p99 bound.
 */
class ReceiptQuotaResilienceIT {
  private static final long QUOTA_BYTES = 4L << 20;

  /**
   * What the database and its WAL may hold after the attack: the quota, what the attacker's sixteen
   * checks in flight may add past it (16 × 20 receipts of ~17 KB), the rows' own overhead and the
   * WAL's unreclaimed pages.
   */
  private static final long DISK_BOUND = QUOTA_BYTES + (24L << 20);

  @TempDir Path work;

  private HostileServer hostile;

  @AfterEach
  void stop() {
    if (hostile != null) {
      hostile.close();
    }
  }

  @Test
  void aWorkspaceThatFillsItsQuotaGets429AndTheDiskStaysBounded() throws Exception {
    hostile =
        HostileServer.start(work, "-Xmx768m", "--quota-pro-bytes", Long.toString(QUOTA_BYTES));
    List<String> scopes =
        IntStream.range(0, 20).mapToObj(s -> "{\"name\":\"s" + s + "\"}").toList();
    String names =
        String.join(",", IntStream.range(0, 20).mapToObj(s -> "\"s" + s + "\"").toList());
    String id = hostile.authorize(HostileServer.ATTACKER_KEY, scopes.toArray(String[]::new));
    String body =
        "{\"authorization_id\":\"%s\",\"scopes\":[%s],\"context\":{\"pad\":\"%s\"}}"
            .formatted(id, names, "x".repeat(16 * 1024 - 64));

    Tally[] t =
        hostile.attack(
            16, i -> new String[] {"POST", "/v1/check", body}, HostileServer.ATTACKER_KEY);

    synchronized (t[0].unexpected) {
      t[0].unexpected.stream().limit(5).forEach(e -> System.out.println("attacker saw: " + e));
    }
    assertThat(t[0].statuses.get(429)).as("attacker: %s", t[0]).isNotNull();
    Resp refused = hostile.send("POST", "/v1/check", body, HostileServer.ATTACKER_KEY);
    assertThat(refused.status()).as(refused.raw()).isEqualTo(429);
    assertThat(refused.code()).isEqualTo("quota_exceeded");
    assertThat(Long.parseLong(refused.header("Retry-After"))).isBetween(1L, 86_400L);

    long disk = Files.size(hostile.database()) + walSize();
    long receipts = receipts();
    System.out.printf(
        "quota attack: %d receipts stored, database + WAL %d bytes (%d per receipt)%n",
        receipts, disk, disk / Math.max(1, receipts));
    assertThat(disk).as("database + WAL bytes").isLessThanOrEqualTo(DISK_BOUND);

    String metrics = hostile.send("GET", "/metrics", null, null).raw();
    assertThat(metrics).containsPattern("agentauth_quota_refusals_total\\{quota=\"bytes\"} [1-9]");
    // Bystander p99 here was 122 ms on the machine of benchmarks/README.md's round-2 table. On a
    // later, slower machine the build from before the receipt log gave 270 and 375 ms and the
    // current one 376 and 640 ms (about 100 bystander checks a run, so the p99 is nearly the
    // slowest one): the bound tells a slowed bystander from a stalled one on any machine CI runs.
    hostile.assertSurvived(t[0], t[1], java.time.Duration.ofSeconds(1), 200, 429);
  }

  private long walSize() throws Exception {
    Path wal = hostile.database().resolveSibling(hostile.database().getFileName() + "-wal");
    return Files.exists(wal) ? Files.size(wal) : 0;
  }

  private long receipts() throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + hostile.database());
        ResultSet rs = c.createStatement().executeQuery("SELECT count(*) FROM receipts")) {
      return rs.next() ? rs.getLong(1) : -1;
    }
  }
}
