package dev.agentauth.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentauth.model.AgentAuthJson;
import dev.agentauth.server.ServerHarness.Resp;
import dev.agentauth.server.ServerMainIT.Child;
import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/**
 * The hostile-load fixture shared by the resilience suites: the server jar as a child process on
 * SQLite with a small heap, an attacker workspace ({@code ws_attacker}, key {@link #ATTACKER_KEY},
 * pro plan) and a bystander workspace ({@code ws_victim}) whose agent keeps checking one
 * authorization while an attack runs. {@link #assertSurvived} states what every attack must leave
 * true: the attacker got its answers quickly, every bystander check succeeded within a p99 bound,
 * the process is alive without an OutOfMemoryError and answers {@code /healthz} and {@code
 * /readyz}.
 *
 * <p>Use one per test: {@code try (HostileServer s = HostileServer.start(work, options)) {...}}.
 */
final class HostileServer implements AutoCloseable {
  static final String ATTACKER_KEY = "sk_" + "attacker0key0".repeat(3) + "resi";
  static final String ADMIN = "admin-token-for-resilience";

  /** The bystander's checks must keep this p99 while an attack runs (issue 25's bar). */
  static final Duration BYSTANDER_P99 = Duration.ofMillis(250);

  /** The attacker's answers must come within this, whatever they say. */
  static final Duration ATTACKER_MAX = Duration.ofSeconds(5);

  /** How long an attack runs unless a test says otherwise. */
  static final Duration ATTACK = Duration.ofSeconds(8);

  final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  private final Path work;

  /** The {@code --store} argument; null for SQLite in {@link #database()}. */
  private final String store;

  private final String heap;
  private final List<String> extraArgs;
  private final Map<String, String> extraEnv;
  Child server;
  String base;
  String victimKey;
  String victimAuthorization;

  private HostileServer(
      Path work, String store, String heap, List<String> extraArgs, Map<String, String> extraEnv) {
    this.work = work;
    this.store = store;
    this.heap = heap;
    this.extraArgs = List.copyOf(extraArgs);
    this.extraEnv = Map.copyOf(extraEnv);
  }

  /** A server with {@code heap} (e.g. {@code -Xmx768m}) and no bystander yet. */
  static HostileServer startServer(
      Path work, String heap, List<String> extraArgs, Map<String, String> extraEnv)
      throws Exception {
    HostileServer s = new HostileServer(work, null, heap, extraArgs, extraEnv);
    s.restart();
    return s;
  }

  /**
   * Like {@link #start}, on the store {@code store} names as {@code --store} does (e.g. {@code
   * memory}) instead of SQLite.
   */
  static HostileServer startOn(String store, Path work, String heap, String... extraArgs)
      throws Exception {
    HostileServer s = new HostileServer(work, store, heap, List.of(extraArgs), Map.of());
    s.restart();
    s.addVictim();
    return s;
  }

  /** A server with {@code heap}, plus the bystander workspace and its one authorization. */
  static HostileServer start(Path work, String heap, String... extraArgs) throws Exception {
    HostileServer s = startServer(work, heap, List.of(extraArgs), Map.of());
    try {
      s.addVictim();
    } catch (Exception | AssertionError e) {
      s.close(); // the test never gets the fixture to close
      throw e;
    }
    return s;
  }

  Path database() {
    return work.resolve("data").resolve("agentauth.db");
  }

  /** Starts (again) a server process on the same database and options. */
  void restart() throws Exception {
    Files.createDirectories(database().getParent());
    List<String> args =
        new ArrayList<>(
            List.of("--port", "0", "--store", store != null ? store : "sqlite:" + database()));
    args.addAll(extraArgs);
    Map<String, String> env = new HashMap<>();
    env.put("AGENTAUTH_ADMIN_TOKEN", ADMIN);
    env.put("AGENTAUTH_BOOTSTRAP_WORKSPACE", "ws_attacker");
    env.put("AGENTAUTH_BOOTSTRAP_PLAN", "pro");
    env.put("AGENTAUTH_BOOTSTRAP_API_KEY", ATTACKER_KEY);
    env.put("JAVA_TOOL_OPTIONS", heap);
    env.putAll(extraEnv);
    server = new Child(args, env, work);
    base = server.awaitReady();
  }

  /** The server's port, for raw sockets. */
  int port() {
    return Integer.parseInt(base.substring(base.lastIndexOf(':') + 1));
  }

  private void addVictim() throws Exception {
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

  /** Grants user {@code u1}'s agent {@code a1} the given scope entries (JSON objects). */
  String authorize(String key, String... scopes) throws Exception {
    String body =
        "{\"user_id\":\"u1\",\"agent_id\":\"a1\",\"scopes\":["
            + String.join(",", scopes)
            + "],\"expires_at\":\""
            + AgentAuthJson.formatInstant(Instant.now().plus(Duration.ofDays(1)))
            + "\"}";
    return call("POST", "/v1/authorizations", body, key, 201).path("authorization_id").asText();
  }

  /** Sends a request and asserts its status; returns the body. */
  JsonNode call(String method, String path, String body, String key, int expected)
      throws Exception {
    Resp r = send(method, path, body, key);
    assertThat(r.status()).as(method + " " + path + ": " + r.raw()).isEqualTo(expected);
    return r.body();
  }

  Resp send(String method, String path, String body, String key)
      throws IOException, InterruptedException {
    return ServerMainIT.send(http, method, base + path, body, key, Map.of());
  }

  /** One bystander check, as the bystander's agent sends it. */
  Resp victimCheck() throws IOException, InterruptedException {
    return send(
        "POST",
        "/v1/check",
        "{\"authorization_id\":\"" + victimAuthorization + "\",\"scopes\":[\"crm.read\"]}",
        victimKey);
  }

  /** What one side of a load saw: the latency and status of every request. */
  static final class Tally {
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
   * Runs {@code threads} attackers, each sending {@code request.apply(i)} (method, path, body) with
   * {@code key} in a loop, and the bystander checking one check after another, for {@link #ATTACK};
   * returns the attacker's and the bystander's tallies.
   */
  Tally[] attack(int threads, IntFunction<String[]> request, String key) throws Exception {
    Tally attacker = new Tally();
    long deadline = System.nanoTime() + ATTACK.toNanos();
    List<Callable<Void>> loops = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      loops.add(
          () -> {
            int i = 0;
            while (System.nanoTime() < deadline) {
              String[] req = request.apply(i++);
              long start = System.nanoTime();
              try {
                Resp r = send(req[0], req[1], req[2], key);
                attacker.record(System.nanoTime() - start, r.status());
              } catch (IOException e) {
                attacker.unexpected.add(e.toString());
                attacker.record(System.nanoTime() - start, -1);
              }
            }
            return null;
          });
    }
    return new Tally[] {attacker, whileRunning(ATTACK, loops)};
  }

  /**
   * Runs {@code loads} (each returns when its own deadline passes) while the bystander checks one
   * check after another for {@code duration}; returns the bystander's tally. Every load must end
   * within a minute after {@code duration}.
   */
  Tally whileRunning(Duration duration, List<Callable<Void>> loads) throws Exception {
    Tally victim = new Tally();
    long deadline = System.nanoTime() + duration.toNanos();
    ExecutorService pool = Executors.newFixedThreadPool(loads.size() + 1);
    try {
      List<Future<?>> running = new ArrayList<>();
      for (Callable<Void> load : loads) {
        running.add(pool.submit(load));
      }
      running.add(
          pool.submit(
              () -> {
                while (System.nanoTime() < deadline) {
                  long start = System.nanoTime();
                  try {
                    Resp r = victimCheck();
                    victim.record(System.nanoTime() - start, r.status());
                    if (r.status() != 200) {
                      victim.unexpected.add(r.status() + " " + r.raw());
                    }
                  } catch (IOException e) {
                    victim.record(System.nanoTime() - start, -1);
                    victim.unexpected.add(e.toString());
                  }
                }
                return null;
              }));
      for (Future<?> f : running) {
        f.get(duration.toSeconds() + 60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    return victim;
  }

  /** What every attack must leave true, with the bystander held to {@link #BYSTANDER_P99}. */
  void assertSurvived(Tally attacker, Tally victim, int... attackerStatuses) throws Exception {
    assertSurvived(attacker, victim, BYSTANDER_P99, attackerStatuses);
  }

  void assertSurvived(Tally attacker, Tally victim, Duration victimP99, int... attackerStatuses)
      throws Exception {
    String report = "attacker: " + attacker + "; victim: " + victim;
    System.out.println("hostile load " + report);
    assertThat(attacker.nanos).as(report).isNotEmpty();
    List<Integer> allowed = new ArrayList<>();
    for (int s : attackerStatuses) {
      allowed.add(s);
    }
    assertThat(attacker.statuses.keySet()).as(report).isSubsetOf(allowed);
    assertThat(attacker.percentile(1.0)).as(report).isLessThanOrEqualTo(ATTACKER_MAX);
    assertBystanderServed(victim, victimP99, report);
  }

  /** The bystander's side alone: every check a 200 within {@code victimP99}; the server healthy. */
  void assertBystanderServed(Tally victim, Duration victimP99, String report) throws Exception {
    assertThat(victim.unexpected).as(report).isEmpty();
    assertThat(victim.nanos.size()).as(report).isGreaterThan(10);
    assertThat(victim.percentile(0.99)).as(report).isLessThanOrEqualTo(victimP99);
    assertHealthy();
  }

  /** Alive, no OutOfMemoryError, {@code /healthz} and {@code /readyz} 200. */
  void assertHealthy() throws Exception {
    assertThat(server.process.isAlive()).as("server alive; stderr: %s", server.stderr).isTrue();
    assertThat(server.stderr.toString()).doesNotContain("OutOfMemoryError");
    Resp health = send("GET", "/healthz", null, null);
    assertThat(health.status()).as(health.raw()).isEqualTo(200);
    Resp ready = send("GET", "/readyz", null, null);
    assertThat(ready.status()).as(ready.raw()).isEqualTo(200);
  }

  @Override
  public void close() {
    if (server != null) {
      server.close();
    }
  }
}
