package dev.agentauth.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.model.AgentAuthJson;
import dev.agentauth.server.ServerHarness.Resp;
import dev.agentauth.server.ServerMainIT.Child;
import dev.agentauth.verifier.ChainReport;
import dev.agentauth.verifier.ChainVerifier;
import dev.agentauth.verifier.ReceiptVerifier;
import dev.agentauth.verifier.VerificationResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server on SQLite killed with SIGKILL while checks are in flight loses nothing it answered:
 * after a restart on the same database file every answered receipt exists and gets signed, every
 * receipt verifies offline and chains, the daily counter equals the allow receipts stored, and the
 * budget spent equals the sum of the stored allows' amounts.
 */
class CrashRecoveryIT {
  private static final String KEY = "sk_" + "Q3Jhc2hSZWNvdmVyeUtleQ".repeat(2).substring(0, 43);
  private static final ObjectMapper MAPPER = AgentAuthJson.newObjectMapper();
  private static final int THREADS = 12;

  /** Answered checks before the kill (about half of them on the counted scope). */
  private static final int ANSWERED_BEFORE_KILL = 1_200;

  /** max_per_day of the counted scope: well above what the load reaches, small enough to use up. */
  private static final int DAILY_LIMIT = 1_000;

  private static final Duration DEADLINE = Duration.ofSeconds(60);

  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  @TempDir Path dir;

  /** A check the server answered with 200: which authorization, its result, and the cost sent. */
  private record Answer(String authorizationId, JsonNode result, long cost) {
    String receiptId() {
      return result.path("receipt").path("receipt_id").asText();
    }

    boolean allowed() {
      return "allow".equals(result.path("decision").asText());
    }
  }

  @Test
  void sigkillUnderLoadLosesNoAnsweredReceiptAndKeepsCountersConsistent() throws Exception {
    List<String> args =
        List.of(
            "--port",
            "0",
            "--store",
            "sqlite:" + dir.resolve("agentauth.db"),
            "--bootstrap-api-key",
            KEY);
    LocalDate dayBefore = LocalDate.now(ZoneOffset.UTC);
    String counted;
    String budgeted;
    Queue<Answer> answers = new ConcurrentLinkedQueue<>();
    try (Child first = new Child(args, Map.of(), dir)) {
      String base = first.awaitReady();
      counted =
          authorize(
              base,
              "[{\"name\":\"email.send\",\"constraints\":{\"max_per_day\":" + DAILY_LIMIT + "}}]",
              null);
      budgeted = authorize(base, "[{\"name\":\"llm.call\"}]", 1_000_000_000_000L);

      Load load = new Load(base, counted, budgeted, answers);
      load.start();
      load.awaitAnswered(ANSWERED_BEFORE_KILL);
      load.killing.set(true);
      first.kill();
      load.join();
      assertThat(load.failure.get()).as("a request failed before the kill").isNull();
    }
    assertThat(answers.size()).isGreaterThanOrEqualTo(ANSWERED_BEFORE_KILL);
    assertThat(dir.resolve("master.key")).isRegularFile();

    try (Child second = new Child(args, Map.of(), dir)) {
      String base = second.awaitReady();

      List<String> countedChain = chainIds(base, counted, "");
      List<String> budgetedChain = chainIds(base, budgeted, "");
      Set<String> all = new LinkedHashSet<>(countedChain);
      all.addAll(budgetedChain);
      for (Answer a : answers) {
        assertThat(a.authorizationId().equals(counted) ? countedChain : budgetedChain)
            .as("chain of %s holds answered receipt", a.authorizationId())
            .contains(a.receiptId());
      }
      Map<String, String> signed = awaitSigned(base, all);

      ReceiptVerifier verifier =
          ReceiptVerifier.builder()
              .keys(call("GET", base + "/v1/workspaces/ws_local/keys", null, 200).body())
              .build();
      for (Map.Entry<String, String> e : signed.entrySet()) {
        VerificationResult result = verifier.verify(e.getValue());
        assertThat(result.valid()).as("receipt %s: %s", e.getKey(), result).isTrue();
      }
      for (List<String> chain : List.of(countedChain, budgetedChain)) {
        List<String> texts = new ArrayList<>();
        chain.forEach(id -> texts.add(signed.get(id)));
        ChainReport report = new ChainVerifier(verifier).verify(texts);
        assertThat(report.valid()).as(report.toString()).isTrue();
      }

      // The daily counter: stored allow receipts cover every acknowledged allow, plus at most one
      // committed-but-unanswered request per client thread.
      List<JsonNode> countedAllows = receiptsWithDecision(signed, countedChain, "allow");
      assertThat(chainIds(base, counted, "&decision=allow")).hasSize(countedAllows.size());
      long acknowledgedAllows =
          answers.stream().filter(a -> a.authorizationId().equals(counted) && a.allowed()).count();
      assertThat(countedAllows.size())
          .isGreaterThanOrEqualTo((int) acknowledgedAllows)
          .isLessThanOrEqualTo((int) acknowledgedAllows + THREADS)
          .isLessThan(DAILY_LIMIT);

      // The budget: spent equals the sum of the stored allows' amounts, and those allows' balances
      // form one unbroken sequence from 0 (no lost or doubled update).
      List<JsonNode> budgetAllows = receiptsWithDecision(signed, budgetedChain, "allow");
      assertThat(chainIds(base, budgeted, "&decision=allow")).hasSize(budgetAllows.size());
      long spent =
          call("GET", base + "/v1/authorizations/" + budgeted, null, 200)
              .body()
              .path("budget_spent_micros")
              .asLong();
      long storedSum = 0;
      List<JsonNode> balances = new ArrayList<>();
      for (JsonNode r : budgetAllows) {
        JsonNode b = r.at("/context/budget");
        storedSum += b.path("estimated_cost_micros").asLong();
        balances.add(b);
      }
      assertThat(spent).isEqualTo(storedSum);
      long acknowledgedSpend =
          answers.stream()
              .filter(a -> a.authorizationId().equals(budgeted) && a.allowed())
              .mapToLong(Answer::cost)
              .sum();
      assertThat(acknowledgedSpend).isLessThanOrEqualTo(spent);
      balances.sort(Comparator.comparingLong(b -> b.path("spent_micros").asLong()));
      long running = 0;
      for (JsonNode b : balances) {
        assertThat(b.path("spent_micros").asLong()).as("balance chain").isEqualTo(running);
        running = b.path("spent_after_micros").asLong();
        assertThat(running)
            .isEqualTo(b.path("spent_micros").asLong() + b.path("estimated_cost_micros").asLong());
      }
      assertThat(running).isEqualTo(spent);
      JsonNode next = check(base, budgeted, 500);
      assertThat(next.path("decision").asText()).isEqualTo("allow");
      assertThat(next.at("/budget/spent_micros").asLong()).isEqualTo(spent);
      assertThat(next.at("/budget/spent_after_micros").asLong()).isEqualTo(spent + 500);

      // The counter continues from the stored count: exactly the rest of the daily limit is
      // allowed after the restart.
      int allowedAfterRestart = useUpDailyLimit(base, counted);
      assumeTrue(
          dayBefore.equals(LocalDate.now(ZoneOffset.UTC)),
          "the test crossed UTC midnight, which resets the daily counter");
      assertThat(countedAllows.size() + allowedAfterRestart).isEqualTo(DAILY_LIMIT);

      assertThat(second.terminate()).as("exit code; stderr: %s", second.stderr).isZero();
    }
  }

  /** Client threads sending checks, alternating between the two authorizations, until killed. */
  private final class Load {
    final String base;
    final String counted;
    final String budgeted;
    final Queue<Answer> answers;
    final AtomicBoolean killing = new AtomicBoolean();
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    final List<Thread> threads = new ArrayList<>();

    Load(String base, String counted, String budgeted, Queue<Answer> answers) {
      this.base = base;
      this.counted = counted;
      this.budgeted = budgeted;
      this.answers = answers;
    }

    void start() {
      for (int t = 0; t < THREADS; t++) {
        int index = t;
        Thread thread = new Thread(() -> run(index), "crash-load-" + t);
        thread.setDaemon(true);
        threads.add(thread);
        thread.start();
      }
    }

    private void run(int index) {
      for (int n = 0; ; n++) {
        boolean useCounted = (index + n) % 2 == 0;
        String id = useCounted ? counted : budgeted;
        long cost = useCounted ? 0 : 1_000 + 100L * ((index + n) % 10);
        ObjectNode body = MAPPER.createObjectNode().put("authorization_id", id);
        body.putArray("scopes").add(useCounted ? "email.send" : "llm.call");
        if (!useCounted) {
          body.put("estimated_cost_micros", cost);
        }
        Resp r;
        try {
          r = ServerMainIT.send(http, "POST", base + "/v1/check", body.toString(), KEY, Map.of());
        } catch (IOException e) {
          if (!killing.get()) {
            failure.compareAndSet(null, e);
          }
          return; // the kill cut this request off, or it found the server gone
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
        if (r.status() != 200 || !r.body().path("results").isObject()) {
          if (!killing.get()) {
            failure.compareAndSet(
                null, new AssertionError("check answered " + r.status() + ": " + r.raw()));
          }
          return;
        }
        JsonNode result = r.body().path("results").path(useCounted ? "email.send" : "llm.call");
        String outcome = result.path("decision").asText() + "/" + result.path("reason").asText();
        if (!outcome.equals("allow/authorization_granted_scope_active")
            && !(useCounted && outcome.equals("deny/rate_limit_exceeded"))) {
          failure.compareAndSet(null, new AssertionError("unexpected result " + result));
        }
        answers.add(new Answer(id, result, cost));
      }
    }

    /** Waits until {@code n} checks were answered (or a thread failed). */
    void awaitAnswered(int n) {
      long deadline = System.nanoTime() + DEADLINE.toNanos();
      while (answers.size() < n) {
        assertThat(failure.get()).as("a request failed under load").isNull();
        assertThat(System.nanoTime()).as("%d checks answered in time", n).isLessThan(deadline);
        LockSupport.parkNanos(Duration.ofMillis(1).toNanos());
      }
    }

    void join() throws InterruptedException {
      for (Thread t : threads) {
        t.join(DEADLINE.toMillis());
        assertThat(t.isAlive()).as("%s stopped after the kill", t.getName()).isFalse();
      }
    }
  }

  /**
   * Sends checks of {@code email.send} from several threads until every thread is denied by the
   * daily limit; returns how many were allowed.
   */
  private int useUpDailyLimit(String base, String id) throws InterruptedException {
    AtomicInteger allowed = new AtomicInteger();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      Thread thread =
          new Thread(
              () -> {
                try {
                  while (true) {
                    String outcome = outcome(check(base, id, null));
                    if (outcome.equals("deny/rate_limit_exceeded")) {
                      return;
                    }
                    assertThat(outcome).isEqualTo("allow/authorization_granted_scope_active");
                    allowed.incrementAndGet();
                  }
                } catch (Throwable e) {
                  failure.compareAndSet(null, e);
                }
              },
              "crash-probe-" + t);
      thread.setDaemon(true);
      threads.add(thread);
      thread.start();
    }
    for (Thread t : threads) {
      t.join(DEADLINE.toMillis());
      assertThat(t.isAlive()).as("%s finished", t.getName()).isFalse();
    }
    assertThat(failure.get()).as("probe failure").isNull();
    return allowed.get();
  }

  private static String outcome(JsonNode result) {
    return result.path("decision").asText() + "/" + result.path("reason").asText();
  }

  /** The signed receipts among {@code ids} with the given decision. */
  private static List<JsonNode> receiptsWithDecision(
      Map<String, String> signed, List<String> ids, String decision) {
    List<JsonNode> out = new ArrayList<>();
    for (String id : ids) {
      JsonNode r = parse(signed.get(id));
      if (decision.equals(r.path("decision").asText())) {
        out.add(r);
      }
    }
    return out;
  }

  /**
   * Fetches every receipt until all are signed (each must exist), polling with a deadline; returns
   * receipt id to signed receipt JSON text.
   */
  private Map<String, String> awaitSigned(String base, Set<String> ids)
      throws InterruptedException {
    Map<String, String> signed = new ConcurrentHashMap<>();
    List<String> pending = new ArrayList<>(ids);
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      while (true) {
        List<Future<String>> stillPending = new ArrayList<>();
        for (String id : pending) {
          stillPending.add(
              pool.submit(
                  () -> {
                    JsonNode body = call("GET", base + "/v1/receipts/" + id, null, 200).body();
                    if ("signed".equals(body.path("status").asText())) {
                      signed.put(id, body.path("receipt").toString());
                      return null;
                    }
                    assertThat(body.path("status").asText()).isEqualTo("pending");
                    return id;
                  }));
        }
        List<String> still = new ArrayList<>();
        for (Future<String> f : stillPending) {
          try {
            String id = f.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
            if (id != null) {
              still.add(id);
            }
          } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError("fetching a receipt failed", e);
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
    } finally {
      pool.shutdownNow();
    }
  }

  /** Every receipt id of the authorization's chain in listing order, {@code extra} filters. */
  private List<String> chainIds(String base, String authorizationId, String extra) {
    List<String> ids = new ArrayList<>();
    String cursor = null;
    do {
      JsonNode page =
          call(
                  "GET",
                  base
                      + "/v1/receipts?limit=100&authorization_id="
                      + authorizationId
                      + extra
                      + (cursor == null ? "" : "&cursor=" + cursor),
                  null,
                  200)
              .body();
      page.path("receipts").forEach(s -> ids.add(s.path("receipt_id").asText()));
      cursor = page.path("has_more").asBoolean() ? page.path("next_cursor").asText() : null;
    } while (cursor != null);
    return ids;
  }

  private String authorize(String base, String scopesJson, Long budget) {
    ObjectNode body = MAPPER.createObjectNode();
    body.put("user_id", "user_crash").put("agent_id", "agent_crash");
    body.set("scopes", parse(scopesJson));
    body.put("expires_at", AgentAuthJson.formatInstant(Instant.now().plus(Duration.ofDays(1))));
    if (budget != null) {
      body.put("budget_limit_micros", budget);
    }
    return call("POST", base + "/v1/authorizations", body.toString(), 201)
        .body()
        .path("authorization_id")
        .asText();
  }

  /** A single-scope check; returns its result. {@code cost} null for unbudgeted. */
  private JsonNode check(String base, String id, Integer cost) {
    String scope = cost == null ? "email.send" : "llm.call";
    ObjectNode body = MAPPER.createObjectNode().put("authorization_id", id);
    body.putArray("scopes").add(scope);
    if (cost != null) {
      body.put("estimated_cost_micros", cost);
    }
    return call("POST", base + "/v1/check", body.toString(), 200)
        .body()
        .path("results")
        .path(scope);
  }

  private Resp call(String method, String url, String body, int expected) {
    try {
      Resp r = ServerMainIT.send(http, method, url, body, KEY, Map.of());
      assertThat(r.status()).as("%s %s: %s", method, url, r.raw()).isEqualTo(expected);
      return r;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static JsonNode parse(String json) {
    try {
      return MAPPER.readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
