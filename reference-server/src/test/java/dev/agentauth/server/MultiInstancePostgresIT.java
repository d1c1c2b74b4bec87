package dev.agentauth.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.model.AgentAuthJson;
import dev.agentauth.server.ServerHarness.Resp;
import dev.agentauth.server.ServerMainIT.Child;
import dev.agentauth.server.store.PostgresTestDatabase;
import dev.agentauth.verifier.ChainReport;
import dev.agentauth.verifier.ChainVerifier;
import dev.agentauth.verifier.ReceiptVerifier;
import dev.agentauth.verifier.VerificationResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two server processes on one PostgreSQL database behave as one service: under concurrent load
 * spread over both, allows never exceed {@code max_per_day}, spend never passes the budget, an
 * Idempotency-Key sent to both at once yields one receipt, and every receipt is signed exactly once
 * (by one instance) and verifies offline.
 */
class MultiInstancePostgresIT {
  private static final String KEY =
      "sk_" + "TXVsdGlJbnN0YW5jZVBvc3RncmVz".repeat(2).substring(0, 43);
  private static final ObjectMapper MAPPER = AgentAuthJson.newObjectMapper();
  private static final int THREADS = 16;
  private static final int MAX_PER_DAY = 300;
  private static final int COUNTED_CHECKS = 480;
  private static final long BUDGET = 5_000_000;
  private static final long COST = 100_000;
  private static final int BUDGETED_CHECKS = 80;
  private static final int IDEMPOTENT_PAIRS = 20;

  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  @TempDir Path dir;
  private String url;
  private final List<Child> children = new ArrayList<>();
  private ExecutorService pool;

  @BeforeEach
  void database() {
    PostgresTestDatabase.assumeAvailable();
    url = PostgresTestDatabase.freshSchemaUrl();
    pool = Executors.newFixedThreadPool(THREADS);
  }

  @AfterEach
  void cleanUp() throws InterruptedException {
    if (pool != null) {
      pool.shutdownNow();
      pool.awaitTermination(10, TimeUnit.SECONDS);
    }
    for (Child c : children) {
      c.close();
      c.process.waitFor(30, TimeUnit.SECONDS);
    }
    if (url != null) {
      PostgresTestDatabase.dropSchema(url);
    }
  }

  /** Starts two server processes on the test database; returns their base URLs. */
  private List<String> twoInstances() throws Exception {
    byte[] raw = new byte[32];
    new SecureRandom().nextBytes(raw);
    Path masterKey = dir.resolve("master.key");
    Files.writeString(masterKey, Base64.getEncoder().encodeToString(raw) + "\n");
    List<String> args =
        List.of(
            "--port",
            "0",
            "--store",
            "postgres:" + url,
            "--master-key-file",
            masterKey.toString(),
            "--bootstrap-api-key",
            KEY);
    // One after the other: the first creates the workspace, the second finds it.
    List<String> bases = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      Child child = new Child(args, Map.of(), dir);
      children.add(child);
      bases.add(child.awaitReady());
    }
    return bases;
  }

  @Test
  void aKeyRevokedOnOneInstanceIsRefusedByTheOtherWithinASecond() throws Exception {
    List<String> bases = twoInstances();
    long worst = 0;
    for (int round = 0; round < 3; round++) {
      JsonNode created =
          call("POST", bases.get(0) + "/v1/api-keys", "{\"role\":\"agent\"}", 201, Map.of()).body();
      String agent = created.path("api_key").asText();
      String keyId = created.path("key_id").asText();
      // The other instance knows the key (and caches it).
      for (int i = 0; i < 3; i++) {
        assertThat(as(agent, bases.get(1) + "/v1/api-keys/current").status()).isEqualTo(200);
      }
      call("DELETE", bases.get(0) + "/v1/api-keys/" + keyId, null, 200, Map.of());
      long revoked = System.nanoTime();
      // The revoking instance refuses it at once.
      assertThat(as(agent, bases.get(0) + "/v1/api-keys/current").status()).isEqualTo(401);
      // The other within a second, and from then on every time.
      long refusedAfter = -1;
      while (System.nanoTime() - revoked < Duration.ofSeconds(3).toNanos()) {
        if (as(agent, bases.get(1) + "/v1/api-keys/current").status() == 401) {
          refusedAfter = System.nanoTime() - revoked;
          break;
        }
        LockSupport.parkNanos(Duration.ofMillis(5).toNanos());
      }
      assertThat(refusedAfter).as("refused by the other instance").isPositive();
      for (int i = 0; i < 5; i++) {
        assertThat(as(agent, bases.get(1) + "/v1/api-keys/current").status()).isEqualTo(401);
      }
      worst = Math.max(worst, refusedAfter);
    }
    System.out.printf(
        "MultiInstancePostgresIT: revocation reached the other instance within %d ms%n",
        worst / 1_000_000);
    assertThat(Duration.ofNanos(worst)).isLessThan(Duration.ofSeconds(1));
  }

  private Resp as(String key, String url) {
    try {
      return ServerMainIT.send(http, "GET", url, null, key, Map.of());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Test
  void twoInstancesShareLimitsIdempotencyAndSignEachReceiptOnce() throws Exception {
    List<String> bases = twoInstances();

    String counted =
        authorize(
            bases.get(0),
            "[{\"name\":\"email.send\",\"constraints\":{\"max_per_day\":" + MAX_PER_DAY + "}}]",
            null);
    String budgeted = authorize(bases.get(1), "[{\"name\":\"llm.call\"}]", BUDGET);
    String plain = authorize(bases.get(0), "[{\"name\":\"doc.read\"}]", null);

    // Load on both instances at once, alternating request by request.
    List<JsonNode> countedResults =
        race(COUNTED_CHECKS, i -> check(bases.get(i % 2), counted, "email.send", null, null));
    List<JsonNode> budgetedResults =
        race(BUDGETED_CHECKS, i -> check(bases.get(i % 2), budgeted, "llm.call", COST, null));

    assertThat(outcomes(countedResults))
        .containsOnlyKeys("allow/authorization_granted_scope_active", "deny/rate_limit_exceeded")
        .containsEntry("allow/authorization_granted_scope_active", MAX_PER_DAY)
        .containsEntry("deny/rate_limit_exceeded", COUNTED_CHECKS - MAX_PER_DAY);
    int allowedSpends = (int) (BUDGET / COST);
    assertThat(outcomes(budgetedResults))
        .containsOnlyKeys("allow/authorization_granted_scope_active", "deny/budget_exceeded")
        .containsEntry("allow/authorization_granted_scope_active", allowedSpends)
        .containsEntry("deny/budget_exceeded", BUDGETED_CHECKS - allowedSpends);
    for (String base : bases) {
      assertThat(
              call("GET", base + "/v1/authorizations/" + budgeted, null, 200, Map.of())
                  .body()
                  .path("budget_spent_micros")
                  .asLong())
          .isEqualTo(BUDGET);
    }

    // The same Idempotency-Key sent to both instances at once: one decision, one receipt.
    List<Resp> idempotent =
        race(
            IDEMPOTENT_PAIRS * 2,
            i ->
                call(
                    "POST",
                    bases.get(i % 2) + "/v1/check",
                    checkBody(plain, "doc.read", null, "doc/" + i / 2),
                    200,
                    Map.of("Idempotency-Key", "pair-" + i / 2)));
    for (int p = 0; p < IDEMPOTENT_PAIRS; p++) {
      Resp a = idempotent.get(2 * p);
      Resp b = idempotent.get(2 * p + 1);
      assertThat(a.body().at("/results/doc.read/receipt/receipt_id").asText())
          .as("pair %d", p)
          .isEqualTo(b.body().at("/results/doc.read/receipt/receipt_id").asText());
      assertThat(a.raw()).as("pair %d", p).isEqualTo(b.raw());
      assertThat(
              List.of(
                  String.valueOf(a.header("Idempotent-Replayed")),
                  String.valueOf(b.header("Idempotent-Replayed"))))
          .as("pair %d: exactly one replay", p)
          .containsExactlyInAnyOrder("true", "null");
    }
    List<String> plainChain = receiptIds(bases.get(1), "authorization_id=" + plain);
    assertThat(plainChain).hasSize(1 + IDEMPOTENT_PAIRS);

    // Every receipt of the workspace, from either instance, gets signed and verifies offline.
    List<String> all = receiptIds(bases.get(0), "");
    assertThat(all).hasSize(3 + COUNTED_CHECKS + BUDGETED_CHECKS + IDEMPOTENT_PAIRS);
    Map<String, String> signed = awaitSigned(bases, all);
    ReceiptVerifier verifier =
        ReceiptVerifier.builder()
            .keys(
                call("GET", bases.get(1) + "/v1/workspaces/ws_local/keys", null, 200, Map.of())
                    .body())
            .build();
    for (String id : all) {
      VerificationResult result = verifier.verify(signed.get(id));
      assertThat(result.valid()).as("receipt %s: %s", id, result).isTrue();
    }
    for (String auth : List.of(counted, budgeted, plain)) {
      List<String> texts = new ArrayList<>();
      receiptIds(bases.get(0), "authorization_id=" + auth).forEach(id -> texts.add(signed.get(id)));
      ChainReport report = new ChainVerifier(verifier).verify(texts);
      assertThat(report.valid()).as(report.toString()).isTrue();
    }

    // Signed once: the instances' signature counts add up to the receipts stored.
    // (Polled: an instance may count a signature just after its commit became visible.)
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    double signatures;
    while (true) {
      signatures = 0;
      for (String base : bases) {
        signatures += signedTotal(base);
      }
      if (signatures >= all.size() || System.nanoTime() > deadline) {
        break;
      }
      LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
    }
    assertThat(signatures).isEqualTo(all.size());

    for (Child child : children) {
      assertThat(child.terminate()).as("exit code; stderr: %s", child.stderr).isZero();
    }
  }

  /** Runs {@code n} tasks on the pool released together; returns their results in task order. */
  private <T> List<T> race(int n, IntFunction<T> task) {
    CountDownLatch go = new CountDownLatch(1);
    List<Future<T>> futures = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      int index = i;
      Callable<T> c =
          () -> {
            go.await();
            return task.apply(index);
          };
      futures.add(pool.submit(c));
    }
    go.countDown();
    List<T> out = new ArrayList<>(n);
    for (Future<T> f : futures) {
      try {
        out.add(f.get(60, TimeUnit.SECONDS));
      } catch (ExecutionException e) {
        throw new AssertionError("a concurrent request failed", e.getCause());
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    }
    return out;
  }

  private static Map<String, Integer> outcomes(List<JsonNode> results) {
    Map<String, Integer> counts = new ConcurrentHashMap<>();
    for (JsonNode r : results) {
      counts.merge(r.path("decision").asText() + "/" + r.path("reason").asText(), 1, Integer::sum);
    }
    return counts;
  }

  /** The sum of {@code agentauth_receipts_signed_total} samples in the instance's metrics. */
  private double signedTotal(String base) {
    Resp r = call("GET", base + "/metrics", null, 200, Map.of());
    double total = 0;
    boolean found = false;
    for (String line : r.raw().split("\n")) {
      if (line.startsWith("agentauth_receipts_signed_total")) {
        String[] parts = line.trim().split("\\s+");
        total += Double.parseDouble(parts[parts.length - 1]);
        found = true;
      }
    }
    assertThat(found).as("agentauth_receipts_signed_total in %s/metrics", base).isTrue();
    return total;
  }

  /**
   * Fetches every receipt until all are signed, asking the instances in turn and polling with a
   * deadline; returns receipt id to signed receipt JSON text.
   */
  private Map<String, String> awaitSigned(List<String> bases, List<String> ids) {
    Map<String, String> signed = new HashMap<>();
    List<String> pending = new ArrayList<>(ids);
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    int round = 0;
    while (true) {
      List<String> still = new ArrayList<>();
      for (String id : pending) {
        String base = bases.get(round++ % bases.size());
        JsonNode body = call("GET", base + "/v1/receipts/" + id, null, 200, Map.of()).body();
        if ("signed".equals(body.path("status").asText())) {
          signed.put(id, body.path("receipt").toString());
        } else {
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

  /** Every receipt id matching {@code query}, in listing order. */
  private List<String> receiptIds(String base, String query) {
    List<String> ids = new ArrayList<>();
    String cursor = null;
    do {
      JsonNode page =
          call(
                  "GET",
                  base
                      + "/v1/receipts?limit=100"
                      + (query.isEmpty() ? "" : "&" + query)
                      + (cursor == null ? "" : "&cursor=" + cursor),
                  null,
                  200,
                  Map.of())
              .body();
      page.path("receipts").forEach(s -> ids.add(s.path("receipt_id").asText()));
      cursor = page.path("has_more").asBoolean() ? page.path("next_cursor").asText() : null;
    } while (cursor != null);
    return ids;
  }

  private String authorize(String base, String scopesJson, Long budget) {
    ObjectNode body = MAPPER.createObjectNode();
    body.put("user_id", "user_multi").put("agent_id", "agent_multi");
    try {
      body.set("scopes", MAPPER.readTree(scopesJson));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    body.put("expires_at", AgentAuthJson.formatInstant(Instant.now().plus(Duration.ofDays(1))));
    if (budget != null) {
      body.put("budget_limit_micros", budget);
    }
    return call("POST", base + "/v1/authorizations", body.toString(), 201, Map.of())
        .body()
        .path("authorization_id")
        .asText();
  }

  private static String checkBody(String id, String scope, Long cost, String resource) {
    ObjectNode body = MAPPER.createObjectNode().put("authorization_id", id);
    body.putArray("scopes").add(scope);
    if (cost != null) {
      body.put("estimated_cost_micros", cost);
    }
    if (resource != null) {
      body.put("resource", resource);
    }
    return body.toString();
  }

  /** A single-scope check; returns its result. */
  private JsonNode check(String base, String id, String scope, Long cost, String resource) {
    return call("POST", base + "/v1/check", checkBody(id, scope, cost, resource), 200, Map.of())
        .body()
        .path("results")
        .path(scope);
  }

  private Resp call(
      String method, String url, String body, int expected, Map<String, String> headers) {
    try {
      Resp r = ServerMainIT.send(http, method, url, body, KEY, headers);
      assertThat(r.status()).as("%s %s: %s", method, url, r.raw()).isEqualTo(expected);
      return r;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
