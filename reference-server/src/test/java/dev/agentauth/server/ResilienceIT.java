package dev.agentauth.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.model.AgentAuthJson;
import dev.agentauth.server.HostileServer.Tally;
import dev.agentauth.server.ServerHarness.Resp;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One client must never stall, crash or bypass the service (issue 14). The jar runs as a child
 * process on SQLite with a small heap; an attacker's API key sends each hostile load of the issue
 * for a few seconds while another workspace's agent keeps checking. Every test asserts the same
 * things: the attacker gets its answers (4xx, 503 or a decision) quickly; the other workspace's
 * checks all succeed with a bounded p99; the process never runs out of memory, and its writer and
 * signer stay alive ({@code /healthz}).
 */
class ResilienceIT {
  private static final String ATTACKER_KEY = HostileServer.ATTACKER_KEY;
  private static final String HEAP = "-Xmx384m";

  /**
   * The victim's p99 under the signing flood. Unlike the other attacks, the flood's checks are
   * valid work: sixteen connections of twenty-receipt checks share the one SQLite writer and, on a
   * CI machine, two cores with the victim, so the victim queues behind them (measured on two cores:
   * p50 140 ms, p99 340 ms, every answer a 200). The bound tells a slowed victim from a stalled one
   * (the attacker's own bound is 5 s); the flood's fairness, refusing the flooding workspace first,
   * is asserted by SigningBackpressureIT.
   */
  private static final Duration VICTIM_P99_UNDER_FLOOD = Duration.ofSeconds(1);

  /**
   * The victim's p99 while four connections send mebibyte contexts. Each of them is read and parsed
   * in full before it is refused, which on two cores takes CPU from the victim: measured p99 257 ms
   * (p50 32 ms, every answer a 200) on 2026-11-25. Slowed, not stalled.
   */
  private static final Duration VICTIM_P99_UNDER_HEAVY_BODIES = Duration.ofMillis(500);

  private static final ObjectMapper MAPPER = AgentAuthJson.newObjectMapper();

  /** Twenty scopes {@code s0}…{@code s19}, as authorization entries and as a check's list. */
  private static final List<String> TWENTY_SCOPES =
      java.util.stream.IntStream.range(0, 20).mapToObj(s -> "{\"name\":\"s" + s + "\"}").toList();

  private static final String TWENTY_NAMES =
      String.join(
          ",", java.util.stream.IntStream.range(0, 20).mapToObj(s -> "\"s" + s + "\"").toList());

  @TempDir Path work;

  private HostileServer hostile;

  @AfterEach
  void stop() {
    if (hostile != null) {
      hostile.close();
    }
  }

  private void startWithVictim() throws Exception {
    hostile = HostileServer.start(work, HEAP);
  }

  private Path database() {
    return hostile.database();
  }

  private String authorize(String key, String... scopes) throws Exception {
    return hostile.authorize(key, scopes);
  }

  private Tally[] attack(int threads, IntFunction<String[]> request, String key) throws Exception {
    return hostile.attack(threads, request, key);
  }

  private void assertSurvived(Tally attacker, Tally victim, int... attackerStatuses)
      throws Exception {
    hostile.assertSurvived(attacker, victim, attackerStatuses);
  }

  private void assertSurvived(
      Tally attacker, Tally victim, Duration victimP99, int... attackerStatuses) throws Exception {
    hostile.assertSurvived(attacker, victim, victimP99, attackerStatuses);
  }

  // ---- the attacks

  /** Item 1: {@code *a} forty times then {@code b}, against resources the agent picks. */
  @Test
  void aBacktrackingResourcePatternStallsNobody() throws Exception {
    startWithVictim();
    String id =
        authorize(
            ATTACKER_KEY,
            "{\"name\":\"files.read\",\"constraints\":{\"resource_pattern\":\""
                + "*a".repeat(40)
                + "b\"}}");
    String body =
        "{\"authorization_id\":\"%s\",\"scopes\":[\"files.read\"],\"resource\":\"%s\"}"
            .formatted(id, "a".repeat(256));

    Tally[] t = attack(8, i -> new String[] {"POST", "/v1/check", body}, ATTACKER_KEY);

    assertSurvived(t[0], t[1], 200);
  }

  /** Item 2: a mebibyte of nested 49,000-character keys over thousands of non-integer leaves. */
  @Test
  void aHostileContextIsRefusedQuicklyAndExhaustsNothing() throws Exception {
    startWithVictim();
    String id = authorize(ATTACKER_KEY, "{\"name\":\"crm.read\"}");
    StringBuilder context = new StringBuilder();
    for (int level = 0; level < 14; level++) {
      context
          .append('"')
          .append(String.valueOf((char) ('a' + level)).repeat(49_000))
          .append("\":{");
    }
    for (int i = 0; i < 30_000; i++) {
      context.append(i == 0 ? "" : ",").append('"').append(i).append("\":1.5");
    }
    context.append("}".repeat(14));
    String body =
        "{\"authorization_id\":\"%s\",\"scopes\":[\"crm.read\"],\"context\":{%s}}"
            .formatted(id, context);
    assertThat(body.length()).isLessThanOrEqualTo(1024 * 1024);

    Tally[] t = attack(4, i -> new String[] {"POST", "/v1/check", body}, ATTACKER_KEY);

    assertSurvived(t[0], t[1], VICTIM_P99_UNDER_HEAVY_BODIES, 400);
  }

  /**
   * Item 3: sixteen connections of twenty-scope checks with a 16 KiB context make receipts faster
   * than they can be signed. Checks slow down or answer 503, memory stays bounded, and a restart on
   * the same database starts and signs everything pending.
   */
  @Test
  void aSigningFloodIsHeldBackAndARestartSignsEverything() throws Exception {
    startWithVictim();
    String id = authorize(ATTACKER_KEY, TWENTY_SCOPES.toArray(String[]::new));
    String pad = "x".repeat(16 * 1024 - 64);
    String body =
        "{\"authorization_id\":\"%s\",\"scopes\":[%s],\"context\":{\"pad\":\"%s\"}}"
            .formatted(id, TWENTY_NAMES, pad);

    Tally[] t = attack(16, i -> new String[] {"POST", "/v1/check", body}, ATTACKER_KEY);

    assertSurvived(t[0], t[1], VICTIM_P99_UNDER_FLOOD, 200, 429, 503);
    assertThat(hostile.server.terminate())
        .as("exit code; stderr: %s", hostile.server.stderr)
        .isZero();
    assertThat(pendingReceipts()).isZero();

    // A crash leaves receipts unsigned; the next start must sign them without loading them all.
    hostile.restart();
    Tally more = attack(16, i -> new String[] {"POST", "/v1/check", body}, ATTACKER_KEY)[0];
    assertThat(more.statuses.keySet())
        .as("attacker: %s; stderr: %s", more, hostile.server.stderr)
        .isSubsetOf(200, 429, 503);
    hostile.server.kill();
    long left = pendingReceipts();
    assertThat(left).as("the kill left receipts pending").isPositive();
    // The restart must start at once on that backlog, and its drain signs all of it on SIGTERM.
    hostile.restart();
    Resp health = hostile.send("GET", "/healthz", null, null);
    assertThat(health.status()).as(health.raw()).isEqualTo(200);
    assertThat(hostile.server.terminate())
        .as("exit code; stderr: %s", hostile.server.stderr)
        .isZero();
    assertThat(pendingReceipts()).as("%d receipts were pending at the restart", left).isZero();
    assertThat(hostile.server.stderr.toString()).doesNotContain("OutOfMemoryError");
  }

  private long pendingReceipts() throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + database());
        ResultSet rs =
            c.createStatement()
                .executeQuery("SELECT count(*) FROM receipts WHERE signature IS NULL")) {
      return rs.next() ? rs.getLong(1) : -1;
    }
  }

  /**
   * Item 5: authorizations carrying about a mebibyte of {@code allowed_initiators} each are
   * refused, so no list page or cache can be filled with them.
   */
  @Test
  void mebibytesOfInitiatorsAreRefused() throws Exception {
    startWithVictim();
    ArrayNode initiators = MAPPER.createArrayNode();
    for (int i = 0; i < 4_000; i++) {
      initiators.add("initiator-" + "x".repeat(230) + i);
    }
    ObjectNode scope = MAPPER.createObjectNode().put("name", "crm.read");
    scope.putObject("constraints").set("allowed_initiators", initiators);
    String body =
        "{\"user_id\":\"u1\",\"agent_id\":\"a1\",\"scopes\":["
            + MAPPER.writeValueAsString(scope)
            + "],\"expires_at\":\""
            + AgentAuthJson.formatInstant(Instant.now().plus(Duration.ofDays(1)))
            + "\"}";
    assertThat(body.length()).isLessThanOrEqualTo(1024 * 1024);

    Tally[] t = attack(4, i -> new String[] {"POST", "/v1/authorizations", body}, ATTACKER_KEY);

    assertSurvived(t[0], t[1], 400);
  }

  /**
   * Item 6: receipt lists whose filter matches nothing, from many connections at once, over a
   * workspace with many receipts: they neither starve the other workspace's checks nor its reads.
   */
  @Test
  void listScansStarveNobody() throws Exception {
    startWithVictim();
    String id = authorize(ATTACKER_KEY, TWENTY_SCOPES.toArray(String[]::new));
    String check = "{\"authorization_id\":\"%s\",\"scopes\":[%s]}".formatted(id, TWENTY_NAMES);
    ExecutorService seeders = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> seeding = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        seeding.add(
            seeders.submit(
                () -> {
                  for (int i = 0; i < 250; i++) {
                    hostile.send("POST", "/v1/check", check, ATTACKER_KEY);
                  }
                  return null;
                }));
      }
      for (Future<?> f : seeding) {
        f.get(120, TimeUnit.SECONDS);
      }
    } finally {
      seeders.shutdownNow();
    }
    String[] filters = {
      "user_id=nobody",
      "resource=nothing",
      "session_id=none",
      "scope=none",
      "decision=escalate",
      "agent_id=nobody"
    };

    Tally[] t =
        attack(
            32,
            i ->
                new String[] {"GET", "/v1/receipts?limit=100&" + filters[i % filters.length], null},
            ATTACKER_KEY);

    assertSurvived(t[0], t[1], 200, 400, 429, 503);
  }
}
