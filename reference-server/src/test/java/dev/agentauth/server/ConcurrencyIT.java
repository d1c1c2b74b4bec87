package dev.agentauth.server;

import static dev.agentauth.server.CheckFixtures.authorization;
import static dev.agentauth.server.CheckFixtures.authorize;
import static dev.agentauth.server.CheckFixtures.check;
import static dev.agentauth.server.CheckFixtures.confirm;
import static dev.agentauth.server.CheckFixtures.escalation;
import static dev.agentauth.server.CheckFixtures.outcome;
import static dev.agentauth.server.CheckFixtures.receiptIds;
import static dev.agentauth.server.CheckFixtures.resolve;
import static dev.agentauth.server.CheckFixtures.resolveOk;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.server.ServerHarness.Resp;
import java.util.ArrayList;
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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Counters, budget, confirmation nonces and escalation approvals change atomically with the
 * decision: under concurrent requests, allows never exceed {@code max_per_day}, spend never passes
 * the limit, an approval yields exactly one allow, a nonce or escalation is resolved once, and a
 * workspace is created once.
 */
class ConcurrencyIT {
  private static final int THREADS = 64;

  private ServerHarness h;
  private ExecutorService pool;

  @BeforeEach
  void start() {
    h = ServerHarness.start();
    pool = Executors.newFixedThreadPool(THREADS);
  }

  @AfterEach
  void stop() throws InterruptedException {
    pool.shutdownNow();
    pool.awaitTermination(10, TimeUnit.SECONDS);
    h.close();
  }

  /** Runs {@code n} tasks released together; returns their results in task order. */
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

  /** Counts {@code decision/reason} outcomes. */
  private static Map<String, Integer> tally(List<List<String>> outcomes) {
    Map<String, Integer> counts = new ConcurrentHashMap<>();
    outcomes.forEach(list -> list.forEach(o -> counts.merge(o, 1, Integer::sum)));
    return counts;
  }

  @Test
  void sixtyFourThreadsNeverGetMoreAllowsThanMaxPerDay() {
    String id =
        authorize(
            h, "{\"scopes\":[{\"name\":\"email.send\",\"constraints\":{\"max_per_day\":100}}]}");
    List<List<String>> outcomes =
        race(
            THREADS,
            i -> {
              List<String> mine = new ArrayList<>();
              for (int k = 0; k < 4; k++) {
                mine.add(check(h, id, "email.send").outcome());
              }
              return mine;
            });
    Map<String, Integer> counts = tally(outcomes);
    assertThat(counts)
        .containsOnlyKeys("allow/authorization_granted_scope_active", "deny/rate_limit_exceeded");
    assertThat(counts.get("allow/authorization_granted_scope_active")).isEqualTo(100);
    assertThat(counts.get("deny/rate_limit_exceeded")).isEqualTo(THREADS * 4 - 100);
    assertThat(receiptIds(h, "authorization_id=" + id + "&decision=allow")).hasSize(100);
    assertThat(h.verifyChain(id)).isEqualTo(1 + THREADS * 4);
  }

  @Test
  void concurrentBudgetedChecksNeverSpendPastTheLimit() {
    long limit = 1_000_000;
    long estimate = 7_000;
    String id =
        authorize(
            h, "{\"scopes\":[{\"name\":\"llm.call\"}],\"budget_limit_micros\":" + limit + "}");
    List<List<JsonNode>> results =
        race(
            THREADS,
            i -> {
              List<JsonNode> mine = new ArrayList<>();
              for (int k = 0; k < 4; k++) {
                mine.add(check(h, id, "llm.call").cost(estimate).result());
              }
              return mine;
            });
    int allows = 0;
    List<Long> spentBefore = new ArrayList<>();
    for (List<JsonNode> list : results) {
      for (JsonNode r : list) {
        String o = outcome(r);
        assertThat(o).isIn("allow/authorization_granted_scope_active", "deny/budget_exceeded");
        JsonNode b = r.path("budget");
        if (r.path("decision").asText().equals("allow")) {
          allows++;
          spentBefore.add(b.path("spent_micros").asLong());
          assertThat(b.path("spent_after_micros").asLong())
              .isEqualTo(b.path("spent_micros").asLong() + estimate)
              .isLessThanOrEqualTo(limit);
        } else {
          assertThat(b.path("spent_micros").asLong() + estimate).isGreaterThan(limit);
        }
      }
    }
    long spent = authorization(h, id).path("budget_spent_micros").asLong();
    assertThat(spent).isLessThanOrEqualTo(limit).isEqualTo(allows * estimate);
    assertThat(allows).isEqualTo((int) (limit / estimate));
    // Each allow saw a distinct spent-so-far: no two allows raced on the same balance.
    assertThat(spentBefore).doesNotHaveDuplicates();
    assertThat(h.verifyChain(id)).isEqualTo(1 + THREADS * 4);
  }

  @Test
  void concurrentRechecksConsumeOneEscalationApprovalExactlyOnce() {
    String id =
        authorize(
            h, "{\"scopes\":[{\"name\":\"pay.send\"}],\"requires_escalation_for\":[\"pay.send\"]}");
    String e = check(h, id, "pay.send").resource("inv/1").result().path("escalation_id").asText();
    resolveOk(h, e, "approved");
    List<JsonNode> results =
        race(THREADS, i -> check(h, id, "pay.send").resource("inv/1").result());
    List<String> outcomes = new ArrayList<>();
    List<String> newEscalations = new ArrayList<>();
    for (JsonNode r : results) {
      outcomes.add(outcome(r));
      if (r.path("decision").asText().equals("escalate")) {
        newEscalations.add(r.path("escalation_id").asText());
      }
    }
    assertThat(outcomes)
        .filteredOn(o -> o.startsWith("allow/"))
        .hasSize(1)
        .containsOnly("allow/authorization_granted_via_escalation");
    assertThat(outcomes).filteredOn(o -> o.startsWith("escalate/")).hasSize(THREADS - 1);
    // Every loser got the one new pending escalation opened after the approval was consumed.
    assertThat(newEscalations).doesNotContain(e);
    assertThat(newEscalations.stream().distinct().count()).isEqualTo(1);
    assertThat(escalation(h, e).path("approval_consumed_at").isNull()).isFalse();
    assertThat(h.verifyChain(id)).isEqualTo(1 + 1 + 1 + THREADS);
  }

  @Test
  void concurrentCreatesOfOneWorkspaceHaveOneWinner() {
    int n = 16;
    List<Resp> answers =
        race(
            n,
            i ->
                h.admin(
                    "/admin/v1/workspaces",
                    h.json(
                        "{\"workspace_id\":\"ws_race\",\"plan\":\""
                            + (i % 2 == 0 ? "pro" : "free")
                            + "\"}")));
    List<Resp> created = answers.stream().filter(r -> r.status() == 201).toList();
    assertThat(created).hasSize(1);
    for (Resp r : answers) {
      if (r != created.get(0)) {
        assertThat(r.status()).as(r.raw()).isEqualTo(409);
        assertThat(r.code()).isEqualTo("workspace_exists");
      }
    }
    // The one workspace is the winner's: its plan, and the one signing key its creation made.
    boolean pro = created.get(0).body().path("plan").asText().equals("pro");
    Resp key = h.admin("/admin/v1/workspaces/ws_race/api-keys", null);
    assertThat(key.status()).as(key.raw()).isEqualTo(201);
    h.useApiKey(key.body().path("api_key").asText());
    ObjectNode escalated =
        h.json(
            "{\"user_id\":\"user_1\",\"agent_id\":\"agent_1\","
                + "\"scopes\":[{\"name\":\"pay.send\"}],\"requires_escalation_for\":[\"pay.send\"],"
                + "\"expires_at\":\"2026-11-23T10:00:00Z\"}");
    Resp r = h.post("/v1/authorizations", escalated);
    assertThat(r.status()).as(r.raw()).isEqualTo(pro ? 201 : 402);
    assertThat(h.keys("ws_race").path("keys")).hasSize(1);
  }

  @Test
  void concurrentResolutionsOfOneNonceSucceedOnce() {
    String id =
        authorize(
            h,
            "{\"scopes\":[{\"name\":\"email.send\"}],\"requires_confirm_for\":[\"email.send\"]}");
    String nonce = check(h, id, "email.send").result().path("confirm_nonce").asText();
    List<Resp> answers =
        race(
            THREADS,
            i -> confirm(h, nonce, i % 2 == 0 ? "{\"approved\":true}" : "{\"approved\":false}"));
    List<Integer> statuses = new ArrayList<>();
    answers.forEach(r -> statuses.add(r.status()));
    assertThat(statuses).filteredOn(s -> s == 200).hasSize(1);
    assertThat(statuses).filteredOn(s -> s == 410).hasSize(THREADS - 1);
    Resp winner = answers.stream().filter(r -> r.status() == 200).findFirst().orElseThrow();
    String expected =
        winner.body().path("decision").asText().equals("approved")
            ? "allow/authorization_granted_via_confirmation"
            : "confirm/scope_requires_user_confirmation";
    assertThat(check(h, id, "email.send").outcome()).isEqualTo(expected);
    h.verifyChain(id);
  }

  @Test
  void concurrentIdenticalResolutionsOfOneEscalationIssueOneReceipt() {
    String id =
        authorize(
            h, "{\"scopes\":[{\"name\":\"pay.send\"}],\"requires_escalation_for\":[\"pay.send\"]}");
    String e = check(h, id, "pay.send").result().path("escalation_id").asText();
    List<Resp> answers = race(THREADS, i -> resolve(h, e, "approved", "mgr_" + i));
    AtomicInteger withReceipt = new AtomicInteger();
    for (Resp r : answers) {
      assertThat(r.status()).as(r.raw()).isEqualTo(200);
      assertThat(r.body().path("status").asText()).isEqualTo("approved");
      if (!r.body().get("receipt").isNull()) {
        withReceipt.incrementAndGet();
      }
    }
    assertThat(withReceipt.get()).isEqualTo(1);
    assertThat(receiptIds(h, "authorization_id=" + id + "&event=escalation.resolve")).hasSize(1);
    assertThat(h.verifyChain(id)).isEqualTo(3);
  }

  @Test
  void concurrentConflictingResolutionsOfOneEscalationHaveOneWinner() {
    String id =
        authorize(
            h, "{\"scopes\":[{\"name\":\"pay.send\"}],\"requires_escalation_for\":[\"pay.send\"]}");
    String e = check(h, id, "pay.send").result().path("escalation_id").asText();
    List<String> asked = new ArrayList<>();
    for (int i = 0; i < THREADS; i++) {
      asked.add(i % 2 == 0 ? "approved" : "rejected");
    }
    List<Resp> answers = race(THREADS, i -> resolve(h, e, asked.get(i), "mgr_" + i));
    String finalStatus = escalation(h, e).path("status").asText();
    assertThat(finalStatus).isIn("approved", "rejected");
    int receipts = 0;
    for (int i = 0; i < THREADS; i++) {
      Resp r = answers.get(i);
      if (asked.get(i).equals(finalStatus)) {
        assertThat(r.status()).as(r.raw()).isEqualTo(200);
        if (!r.body().get("receipt").isNull()) {
          receipts++;
        }
      } else {
        assertThat(r.status()).as(r.raw()).isEqualTo(409);
        assertThat(r.code()).isEqualTo("escalation_conflict");
      }
    }
    assertThat(receipts).isEqualTo(1);
    assertThat(receiptIds(h, "authorization_id=" + id + "&event=escalation.resolve")).hasSize(1);
    assertThat(h.verifyChain(id)).isEqualTo(3);
  }
}
