package dev.agentauth.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.model.AgentAuthJson;
import dev.agentauth.server.ServerHarness.Resp;
import dev.agentauth.server.ServerMainIT.Child;
import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
  private static final String ATTACKER_KEY = "sk_" + "attacker0key0".repeat(3) + "resi";
  private static final String ADMIN = "admin-token-for-resilience";
  private static final String HEAP = "-Xmx384m";

  /** How long each attack runs while the other workspace is measured. */
  private static final Duration ATTACK = Duration.ofSeconds(8);

  /** The other workspace's checks must keep this p99 while an attack runs. */
  private static final Duration VICTIM_P99 = Duration.ofMillis(250);

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

  /** The attacker's answers must come within this, whatever they say. */
  private static final Duration ATTACKER_MAX = Duration.ofSeconds(5);

  private static final ObjectMapper MAPPER = AgentAuthJson.newObjectMapper();

  /** Twenty scopes {@code s0}…{@code s19}, as authorization entries and as a check's list. */
  private static final List<String> TWENTY_SCOPES =
      java.util.stream.IntStream.range(0, 20).mapToObj(s -> "{\"name\":\"s" + s + "\"}").toList();

  private static final String TWENTY_NAMES =
      String.join(
          ",", java.util.stream.IntStream.range(0, 20).mapToObj(s -> "\"s" + s + "\"").toList());

  @TempDir Path work;

  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  private Child server;
  private String base;
  private String victimKey;
  private String victimAuthorization;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  // ---- the server, the victim and the attacker

  private Path database() {
    return work.resolve("data").resolve("agentauth.db");
  }

  private void startServer() throws Exception {
    Files.createDirectories(database().getParent());
    server =
        new Child(
            List.of("--port", "0", "--store", "sqlite:" + database()),
            Map.of(
                "AGENTAUTH_ADMIN_TOKEN", ADMIN,
                "AGENTAUTH_BOOTSTRAP_WORKSPACE", "ws_attacker",
                "AGENTAUTH_BOOTSTRAP_API_KEY", ATTACKER_KEY,
                "JAVA_TOOL_OPTIONS", HEAP),
            work);
    base = server.awaitReady();
  }

  /** Starts the server and a second workspace with one authorization, checked by the victim. */
  private void startWithVictim() throws Exception {
    startServer();
    call(
        "POST",
        "/admin/v1/workspaces",
        "{\"workspace_id\":\"ws_victim\",\"plan\":\"pro\"}",
        ADMIN,
        201);
    victimKey =
        call("POST", "/admin/v1/workspaces/ws_victim/api-keys", null, ADMIN, 201)
            .path("api_key")
            .asText();
    victimAuthorization = authorize(victimKey, "{\"name\":\"crm.read\"}");
  }

  private String authorize(String key, String... scopes) throws Exception {
    String body =
        "{\"user_id\":\"u1\",\"agent_id\":\"a1\",\"scopes\":["
            + String.join(",", scopes)
            + "],\"expires_at\":\""
            + AgentAuthJson.formatInstant(Instant.now().plus(Duration.ofDays(1)))
            + "\"}";
    return call("POST", "/v1/authorizations", body, key, 201).path("authorization_id").asText();
  }

  private JsonNode call(String method, String path, String body, String key, int expected)
      throws Exception {
    Resp r = ServerMainIT.send(http, method, base + path, body, key, Map.of());
    assertThat(r.status()).as(method + " " + path + ": " + r.raw()).isEqualTo(expected);
    return r.body();
  }

  /** What one side of a load saw: the latency and status of every request. */
  private static final class Tally {
    final List<Long> nanos = Collections.synchronizedList(new ArrayList<>());
    final Map<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
    final List<String> unexpected = Collections.synchronizedList(new ArrayList<>());

    void record(long took, int status) {
      nanos.add(took);
      statuses.computeIfAbsent(status, s -> new AtomicInteger()).incrementAndGet();
    }

    Duration percentile(double p) {
      List<Long> sorted;
      synchronized (nanos) {
        sorted = new ArrayList<>(nanos);
      }
      Collections.sort(sorted);
      if (sorted.isEmpty()) {
        return Duration.ZERO;
      }
      int i = (int) Math.ceil(p * sorted.size()) - 1;
      return Duration.ofNanos(sorted.get(Math.max(0, i)));
    }

    @Override
    public String toString() {
      return "%d requests, statuses %s, p50 %d ms, p99 %d ms, max %d ms"
          .formatted(
              nanos.size(),
              statuses,
              percentile(0.5).toMillis(),
              percentile(0.99).toMillis(),
              percentile(1.0).toMillis());
    }
  }

  /**
   * Runs {@code threads} attackers, each sending {@code request.apply(i)} (method, path, body) in a
   * loop, and one victim checking its authorization one check after another, for {@link #ATTACK};
   * returns both tallies.
   */
  private Tally[] attack(int threads, IntFunction<String[]> request, String key) throws Exception {
    Tally attacker = new Tally();
    Tally victim = new Tally();
    long deadline = System.nanoTime() + ATTACK.toNanos();
    ExecutorService pool = Executors.newFixedThreadPool(threads + 1);
    try {
      List<Future<?>> running = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        running.add(
            pool.submit(
                () -> {
                  int i = 0;
                  while (System.nanoTime() < deadline) {
                    String[] req = request.apply(i++);
                    long start = System.nanoTime();
                    try {
                      Resp r =
                          ServerMainIT.send(http, req[0], base + req[1], req[2], key, Map.of());
                      attacker.record(System.nanoTime() - start, r.status());
                    } catch (IOException e) {
                      attacker.unexpected.add(e.toString());
                      attacker.record(System.nanoTime() - start, -1);
                    }
                  }
                  return null;
                }));
      }
      running.add(
          pool.submit(
              () -> {
                String body =
                    "{\"authorization_id\":\""
                        + victimAuthorization
                        + "\",\"scopes\":[\"crm.read\"]}";
                while (System.nanoTime() < deadline) {
                  long start = System.nanoTime();
                  Resp r =
                      ServerMainIT.send(
                          http, "POST", base + "/v1/check", body, victimKey, Map.of());
                  victim.record(System.nanoTime() - start, r.status());
                  if (r.status() != 200) {
                    victim.unexpected.add(r.status() + " " + r.raw());
                  }
                }
                return null;
              }));
      for (Future<?> f : running) {
        f.get(ATTACK.toSeconds() + 60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    return new Tally[] {attacker, victim};
  }

  /** What every attack must leave true. */
  private void assertSurvived(Tally attacker, Tally victim, int... attackerStatuses)
      throws Exception {
    assertSurvived(attacker, victim, VICTIM_P99, attackerStatuses);
  }

  private void assertSurvived(
      Tally attacker, Tally victim, Duration victimP99, int... attackerStatuses) throws Exception {
    String report = "attacker: " + attacker + "; victim: " + victim;
    System.out.println("ResilienceIT " + report);
    assertThat(attacker.nanos).as(report).isNotEmpty();
    assertThat(attacker.statuses.keySet()).as(report).isSubsetOf(boxed(attackerStatuses));
    assertThat(attacker.percentile(1.0)).as(report).isLessThanOrEqualTo(ATTACKER_MAX);
    assertThat(victim.unexpected).as(report).isEmpty();
    assertThat(victim.nanos.size()).as(report).isGreaterThan(10);
    assertThat(victim.percentile(0.99)).as(report).isLessThanOrEqualTo(victimP99);
    assertThat(server.process.isAlive()).as("server alive; stderr: %s", server.stderr).isTrue();
    assertThat(server.stderr.toString()).doesNotContain("OutOfMemoryError");
    Resp health = ServerMainIT.send(http, "GET", base + "/healthz", null, null, Map.of());
    assertThat(health.status()).as(health.raw()).isEqualTo(200);
    Resp ready = ServerMainIT.send(http, "GET", base + "/readyz", null, null, Map.of());
    assertThat(ready.status()).as(ready.raw()).isEqualTo(200);
  }

  private static List<Integer> boxed(int[] statuses) {
    List<Integer> out = new ArrayList<>();
    for (int s : statuses) {
      out.add(s);
    }
    return out;
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

    assertSurvived(t[0], t[1], VICTIM_P99_UNDER_FLOOD, 200, 503);
    assertThat(server.terminate()).as("exit code; stderr: %s", server.stderr).isZero();
    assertThat(pendingReceipts()).isZero();

    // A crash leaves receipts unsigned; the next start must sign them without loading them all.
    startServer();
    Tally more = attack(16, i -> new String[] {"POST", "/v1/check", body}, ATTACKER_KEY)[0];
    assertThat(more.statuses.keySet()).as("attacker: %s", more).isSubsetOf(200, 503);
    server.kill();
    long left = pendingReceipts();
    assertThat(left).as("the kill left receipts pending").isPositive();
    // The restart must start at once on that backlog, and its drain signs all of it on SIGTERM.
    startServer();
    Resp health = ServerMainIT.send(http, "GET", base + "/healthz", null, null, Map.of());
    assertThat(health.status()).as(health.raw()).isEqualTo(200);
    assertThat(server.terminate()).as("exit code; stderr: %s", server.stderr).isZero();
    assertThat(pendingReceipts()).as("%d receipts were pending at the restart", left).isZero();
    assertThat(server.stderr.toString()).doesNotContain("OutOfMemoryError");
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
                    ServerMainIT.send(
                        http, "POST", base + "/v1/check", check, ATTACKER_KEY, Map.of());
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
