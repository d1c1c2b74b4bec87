package dev.agentauth.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.model.AgentAuthJson;
import dev.agentauth.server.ServerHarness.Resp;
import dev.agentauth.server.ServerMainIT.Child;
import dev.agentauth.server.store.PostgresTestDatabase;
import dev.agentauth.server.store.jdbc.MasterKey;
import dev.agentauth.verifier.log.Checkpoint;
import dev.agentauth.verifier.log.CheckpointVerifier;
import dev.agentauth.verifier.log.LogHash;
import dev.agentauth.verifier.log.MerkleProofs;
import dev.agentauth.verifier.log.MerkleRoot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server on SQLite killed with SIGKILL while checks are in flight and the receipt log is growing
 * keeps an append-only log — and so do two instances on one PostgreSQL database killed one after
 * the other: after a restart on the same database the log has no gap and no duplicate, holds every
 * receipt exactly once (those answered before the kill and those made after), its root recomputed
 * from the entries equals the newest checkpoint's, and every checkpoint handed out before the kill
 * is consistent with the newest.
 */
class LogCrashIT {
  private static final String KEY = "sk_" + "TG9nQ3Jhc2hJVEtleTAwMA".repeat(2).substring(0, 43);
  private static final String WS = "ws_local";
  private static final ObjectMapper MAPPER = AgentAuthJson.newObjectMapper();
  private static final int THREADS = 8;

  /** Answered checks before the kill. */
  private static final int ANSWERED_BEFORE_KILL = 1_500;

  /** Distinct checkpoint sizes seen before the kill: the integrator is appending under load. */
  private static final int CHECKPOINTS_BEFORE_KILL = 3;

  /** Checks the surviving instances answer between one kill and the next. */
  private static final int ANSWERED_BETWEEN_KILLS = 200;

  /** Checks made after the restart. */
  private static final int CHECKS_AFTER_RESTART = 200;

  private static final Duration DEADLINE = Duration.ofSeconds(120);

  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  @TempDir Path dir;

  @Test
  void sigkillWhileIntegratingKeepsTheLogGapFreeCompleteAndConsistent() throws Exception {
    List<String> args =
        List.of(
            "--port",
            "0",
            "--store",
            "sqlite:" + dir.resolve("agentauth.db"),
            "--bootstrap-api-key",
            KEY,
            // the log's origin names the public host: the same one for both runs (port 0 differs)
            "--public-url",
            "https://log-crash.example");
    crashAndRecover(List.of(args), ANSWERED_BEFORE_KILL);
  }

  /**
   * Two instances on one PostgreSQL database, both taking checks and both integrating: the first is
   * killed while the second goes on (it takes over the log), then the second is killed too; after
   * both restart the log is as above. Skipped, saying how to provide one, without PostgreSQL.
   */
  @Test
  void sigkillOfTwoPostgresInstancesWhileIntegratingKeepsTheLogGapFreeCompleteAndConsistent()
      throws Exception {
    PostgresTestDatabase.assumeAvailable();
    String url = PostgresTestDatabase.freshSchemaUrl();
    try {
      Path masterKey = dir.resolve("master.key");
      MasterKey.loadOrCreate(masterKey);
      List<String> args =
          List.of(
              "--port",
              "0",
              "--store",
              "postgres:" + url,
              "--master-key-file",
              masterKey.toString(),
              "--bootstrap-api-key",
              KEY,
              "--public-url",
              "https://log-crash.example");
      // PostgreSQL commits each group over a socket, slower than SQLite on two shared cores.
      crashAndRecover(List.of(args, args), ANSWERED_BEFORE_KILL / 3);
    } finally {
      PostgresTestDatabase.dropSchema(url);
    }
  }

  /**
   * Starts one server per argument list (all on one database), loads them with checks while
   * fetching checkpoints from each, kills them one after the other with SIGKILL (the others keep
   * taking checks in between), restarts them all and proves the log whole.
   */
  private void crashAndRecover(List<List<String>> instances, int answeredBeforeKill)
      throws Exception {
    int n = instances.size();
    String authorization;
    Queue<String> answered = new ConcurrentLinkedQueue<>();
    List<List<String>> notesBeforeKill = new ArrayList<>();
    JsonNode keysBefore;
    List<Child> children = new ArrayList<>();
    try {
      List<String> bases = new ArrayList<>();
      for (List<String> args : instances) {
        Child child = new Child(args, Map.of(), dir);
        children.add(child);
        bases.add(child.awaitReady());
      }
      keysBefore = call("GET", bases.get(0) + "/v1/workspaces/" + WS + "/keys", null, 200).body();
      authorization = authorize(bases.get(0));
      List<Load> loads = new ArrayList<>();
      List<Checkpoints> fetchers = new ArrayList<>();
      Set<String> sizes = java.util.concurrent.ConcurrentHashMap.newKeySet();
      for (int i = 0; i < n; i++) {
        Load load = new Load(bases.get(i), authorization, answered, THREADS / n);
        load.start();
        loads.add(load);
        Checkpoints fetcher = new Checkpoints(bases.get(i), load.killing, sizes);
        fetcher.start();
        fetchers.add(fetcher);
      }
      awaitProgress(answered, answeredBeforeKill, sizes, CHECKPOINTS_BEFORE_KILL, loads, fetchers);
      for (int i = 0; i < n; i++) {
        if (i > 0) {
          // The survivors take checks and grow the log alone for a while.
          awaitProgress(
              answered,
              answered.size() + ANSWERED_BETWEEN_KILLS,
              sizes,
              sizes.size() + 1,
              loads.subList(i, n),
              fetchers.subList(i, n));
        }
        loads.get(i).killing.set(true);
        children.get(i).kill();
      }
      for (int i = 0; i < n; i++) {
        loads.get(i).join();
        fetchers.get(i).join(DEADLINE.toMillis());
        assertThat(fetchers.get(i).isAlive()).as("checkpoint fetcher stopped").isFalse();
        assertThat(loads.get(i).failure.get()).as("a check failed before the kill").isNull();
        assertThat(fetchers.get(i).failure.get())
            .as("a checkpoint fetch failed before the kill")
            .isNull();
        notesBeforeKill.add(new ArrayList<>(fetchers.get(i).notes));
      }
    } finally {
      for (Child c : children) {
        c.close();
      }
    }

    // Every checkpoint handed out before the kill verifies against the keys document, and each
    // instance's sizes never went down.
    CheckpointVerifier before = CheckpointVerifier.create(keysBefore, List.of());
    List<Checkpoint> handedOut = new ArrayList<>();
    long lastSizeBeforeKill = 0;
    for (List<String> notes : notesBeforeKill) {
      long previous = 0;
      for (String note : notes) {
        Checkpoint c = before.verify(note).checkpoint();
        assertThat(c.treeSize())
            .as("checkpoint sizes of one instance in the order handed out")
            .isGreaterThanOrEqualTo(previous);
        previous = c.treeSize();
        handedOut.add(c);
        lastSizeBeforeKill = Math.max(lastSizeBeforeKill, c.treeSize());
      }
    }
    System.out.printf(
        "log crash (%d instance(s)): %d checks answered, %d checkpoints handed out, newest size %d"
            + " at the kill%n",
        n, answered.size(), handedOut.size(), lastSizeBeforeKill);

    List<Child> restarted = new ArrayList<>();
    try {
      List<String> bases = new ArrayList<>();
      for (List<String> args : instances) {
        Child child = new Child(args, Map.of(), dir);
        restarted.add(child);
        bases.add(child.awaitReady());
      }
      String base = bases.get(0);
      JsonNode keys = call("GET", base + "/v1/workspaces/" + WS + "/keys", null, 200).body();
      CheckpointVerifier verifier = CheckpointVerifier.create(keys, List.of());
      Set<String> afterRestart = new LinkedHashSet<>();
      for (int i = 0; i < CHECKS_AFTER_RESTART; i++) {
        afterRestart.add(check(bases.get(i % n), authorization));
      }

      // Every receipt the workspace holds (answered, committed but unanswered, made after the
      // restart) gets signed; the log then catches up with all of them.
      List<String> all = receiptIds(base);
      assertThat(all).containsAll(answered).containsAll(afterRestart);
      Map<String, JsonNode> signed = awaitSigned(base, all);
      Checkpoint newest = null;
      for (String b : bases) {
        newest = awaitCheckpointOfSize(b, verifier, all.size());
      }
      assertThat(newest.origin()).isEqualTo("log-crash.example/agentauth/" + WS);
      for (Checkpoint c : handedOut) {
        assertThat(c.origin()).isEqualTo(newest.origin());
      }

      // Gap-free, each receipt exactly once, each entry the signed receipt as served.
      List<JsonNode> entries = entries(base, newest.treeSize());
      assertThat(entries).hasSize((int) newest.treeSize());
      Set<String> logged = new HashSet<>();
      MerkleRoot root = new MerkleRoot();
      for (int i = 0; i < entries.size(); i++) {
        JsonNode e = entries.get(i);
        assertThat(e.path("log_index").asLong(-1)).as("entry %d", i).isEqualTo(i);
        String id = e.path("receipt").path("receipt_id").asText();
        assertThat(logged.add(id)).as("receipt %s logged once", id).isTrue();
        assertThat(e.path("receipt"))
            .as("entry %d is the signed receipt", i)
            .isEqualTo(signed.get(id));
        root.add(LogHash.leaf(signed.get(id)));
      }
      assertThat(logged).containsExactlyInAnyOrderElementsOf(all);
      assertThat(logged).containsAll(answered).containsAll(afterRestart);
      assertThat(root.size()).isEqualTo(newest.treeSize());
      assertThat(root.root()).as("root recomputed from the entries").isEqualTo(newest.rootHash());

      // Nothing handed out before the kill was rewritten: each is a prefix of the newest.
      Set<Long> proved = new HashSet<>();
      for (Checkpoint c : handedOut) {
        if (!proved.add(c.treeSize())) {
          continue;
        }
        JsonNode proof =
            call(
                    "GET",
                    base
                        + "/v1/log/proof/consistency?from="
                        + c.treeSize()
                        + "&to="
                        + newest.treeSize(),
                    null,
                    200)
                .body();
        MerkleProofs.verifyConsistency(
            c.treeSize(), newest.treeSize(), c.rootHash(), newest.rootHash(), hashes(proof));
      }
      for (Child c : restarted) {
        assertThat(c.terminate()).as("exit code; stderr: %s", c.stderr).isZero();
      }
    } finally {
      for (Child c : restarted) {
        c.close();
      }
    }
  }

  /**
   * Waits until {@code answered} holds {@code checks} receipt ids and {@code sizes} {@code
   * checkpoints} distinct checkpoint sizes, failing at once when a load or fetcher failed.
   */
  private static void awaitProgress(
      Queue<String> answered,
      int checks,
      Set<String> sizes,
      int checkpoints,
      List<Load> loads,
      List<Checkpoints> fetchers) {
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    while (answered.size() < checks || sizes.size() < checkpoints) {
      for (Load load : loads) {
        assertThat(load.failure.get()).as("a check failed under load").isNull();
      }
      for (Checkpoints fetcher : fetchers) {
        assertThat(fetcher.failure.get()).as("a checkpoint fetch failed").isNull();
      }
      assertThat(System.nanoTime())
          .as(
              "%d checks answered (have %d) and %d checkpoint sizes (have %d) in time",
              checks, answered.size(), checkpoints, sizes.size())
          .isLessThan(deadline);
      LockSupport.parkNanos(Duration.ofMillis(5).toNanos());
    }
  }

  /** Client threads sending checks until killed; each answered receipt id is recorded. */
  private final class Load {
    final String base;
    final String authorization;
    final Queue<String> answered;
    final AtomicBoolean killing = new AtomicBoolean();
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    final List<Thread> threads = new ArrayList<>();
    final int count;

    Load(String base, String authorization, Queue<String> answered, int count) {
      this.base = base;
      this.authorization = authorization;
      this.answered = answered;
      this.count = count;
    }

    void start() {
      for (int t = 0; t < count; t++) {
        Thread thread = new Thread(this::run, "log-crash-load-" + t);
        thread.setDaemon(true);
        threads.add(thread);
        thread.start();
      }
    }

    private void run() {
      while (true) {
        Resp r;
        try {
          r =
              ServerMainIT.send(
                  http, "POST", base + "/v1/check", checkBody(authorization), KEY, Map.of());
        } catch (IOException e) {
          if (!killing.get()) {
            failure.compareAndSet(null, e);
          }
          return; // the kill cut this request off, or it found the server gone
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
        String id = r.body() == null ? "" : receiptId(r.body());
        if (r.status() != 200 || id.isEmpty()) {
          if (!killing.get()) {
            failure.compareAndSet(
                null, new AssertionError("check answered " + r.status() + ": " + r.raw()));
          }
          return;
        }
        answered.add(id);
      }
    }

    void join() throws InterruptedException {
      for (Thread t : threads) {
        t.join(DEADLINE.toMillis());
        assertThat(t.isAlive()).as("%s stopped after the kill", t.getName()).isFalse();
      }
    }
  }

  /** Fetches the public checkpoint over and over, keeping every one handed out, until killed. */
  private final class Checkpoints extends Thread {
    final String base;
    final AtomicBoolean killing;
    final Queue<String> notes = new ConcurrentLinkedQueue<>();
    final Set<String> sizes;
    final AtomicReference<Throwable> failure = new AtomicReference<>();

    Checkpoints(String base, AtomicBoolean killing, Set<String> sizes) {
      super("log-crash-checkpoints");
      setDaemon(true);
      this.base = base;
      this.killing = killing;
      this.sizes = sizes;
    }

    @Override
    public void run() {
      while (true) {
        Resp r;
        try {
          r =
              ServerMainIT.send(
                  http,
                  "GET",
                  base + "/v1/workspaces/" + WS + "/log/checkpoint",
                  null,
                  null,
                  Map.of());
        } catch (IOException e) {
          if (!killing.get()) {
            failure.compareAndSet(null, e);
          }
          return;
        } catch (InterruptedException e) {
          return;
        }
        if (r.status() == 200) {
          notes.add(r.raw());
          sizes.add(r.raw().split("\n", 3)[1]);
        } else if (r.status() != 404 || !notes.isEmpty()) {
          // 404 only while nothing is integrated yet
          if (!killing.get()) {
            failure.compareAndSet(
                null, new AssertionError("checkpoint answered " + r.status() + ": " + r.raw()));
          }
          return;
        }
        LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
      }
    }
  }

  private static String checkBody(String authorization) {
    return "{\"authorization_id\":\"" + authorization + "\",\"scopes\":[\"crm.read\"]}";
  }

  private static String receiptId(JsonNode checkResponse) {
    return checkResponse
        .path("results")
        .path("crm.read")
        .path("receipt")
        .path("receipt_id")
        .asText();
  }

  private String check(String base, String authorization) {
    String id = receiptId(call("POST", base + "/v1/check", checkBody(authorization), 200).body());
    assertThat(id).isNotEmpty();
    return id;
  }

  /** Polls the public checkpoint until it covers {@code size} leaves; returns it verified. */
  private Checkpoint awaitCheckpointOfSize(String base, CheckpointVerifier verifier, long size) {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    Checkpoint c = null;
    while (true) {
      Resp r = send("GET", base + "/v1/workspaces/" + WS + "/log/checkpoint", null);
      if (r.status() == 200) {
        c = verifier.verify(r.raw()).checkpoint();
        assertThat(c.treeSize()).as("the log never exceeds the receipts").isLessThanOrEqualTo(size);
        if (c.treeSize() == size) {
          return c;
        }
      }
      assertThat(System.nanoTime())
          .as("a checkpoint of %d leaves within 30 s; newest %s", size, c)
          .isLessThan(deadline);
      LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
    }
  }

  /** Log entries 0..size-1, 1,000 per request. */
  private List<JsonNode> entries(String base, long size) {
    List<JsonNode> out = new ArrayList<>();
    while (out.size() < size) {
      JsonNode page =
          call("GET", base + "/v1/log/entries?start=" + out.size() + "&limit=1000", null, 200)
              .body();
      assertThat(page.path("entries").size()).as("entries from %d", out.size()).isPositive();
      page.path("entries").forEach(out::add);
    }
    return out.subList(0, (int) size);
  }

  /** Every receipt id of the workspace, by listing. */
  private List<String> receiptIds(String base) {
    List<String> ids = new ArrayList<>();
    String cursor = null;
    do {
      JsonNode page =
          call(
                  "GET",
                  base + "/v1/receipts?limit=100" + (cursor == null ? "" : "&cursor=" + cursor),
                  null,
                  200)
              .body();
      page.path("receipts").forEach(s -> ids.add(s.path("receipt_id").asText()));
      cursor = page.path("has_more").asBoolean() ? page.path("next_cursor").asText() : null;
    } while (cursor != null);
    assertThat(new HashSet<>(ids)).as("listing without duplicates").hasSameSizeAs(ids);
    return ids;
  }

  /** Fetches every receipt until all are signed; returns receipt id to signed receipt. */
  private Map<String, JsonNode> awaitSigned(String base, List<String> ids) {
    Map<String, JsonNode> signed = new HashMap<>();
    List<String> pending = new ArrayList<>(ids);
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (true) {
      List<String> still = new ArrayList<>();
      for (String id : pending) {
        JsonNode body = call("GET", base + "/v1/receipts/" + id, null, 200).body();
        if ("signed".equals(body.path("status").asText())) {
          signed.put(id, body.path("receipt"));
        } else {
          assertThat(body.path("status").asText()).isEqualTo("pending");
          still.add(id);
        }
      }
      pending = still;
      if (pending.isEmpty()) {
        return signed;
      }
      assertThat(System.nanoTime())
          .as("receipts still pending after 30 s: %s", pending)
          .isLessThan(deadline);
      LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
    }
  }

  private static List<byte[]> hashes(JsonNode proof) {
    List<byte[]> out = new ArrayList<>();
    proof.path("hashes").forEach(x -> out.add(Base64.getDecoder().decode(x.asText())));
    return out;
  }

  private String authorize(String base) {
    String body =
        "{\"user_id\":\"user_log\",\"agent_id\":\"agent_log\",\"scopes\":[{\"name\":\"crm.read\"}],"
            + "\"expires_at\":\""
            + AgentAuthJson.formatInstant(Instant.now().plus(Duration.ofDays(1)))
            + "\"}";
    return call("POST", base + "/v1/authorizations", body, 201)
        .body()
        .path("authorization_id")
        .asText();
  }

  private Resp send(String method, String url, String body) {
    try {
      return ServerMainIT.send(http, method, url, body, KEY, Map.of());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private Resp call(String method, String url, String body, int expected) {
    Resp r = send(method, url, body);
    assertThat(r.status()).as("%s %s: %s", method, url, r.raw()).isEqualTo(expected);
    return r;
  }
}
