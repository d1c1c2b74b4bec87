package dev.agentauth.server.store;

import static dev.agentauth.server.store.StoreConformance.DAY;
import static dev.agentauth.server.store.StoreConformance.T0;
import static dev.agentauth.server.store.StoreConformance.WS_A;
import static dev.agentauth.server.store.StoreConformance.apiKey;
import static dev.agentauth.server.store.StoreConformance.at;
import static dev.agentauth.server.store.StoreConformance.auth;
import static dev.agentauth.server.store.StoreConformance.authId;
import static dev.agentauth.server.store.StoreConformance.chargeAuthorization;
import static dev.agentauth.server.store.StoreConformance.idem;
import static dev.agentauth.server.store.StoreConformance.ids;
import static dev.agentauth.server.store.StoreConformance.receipt;
import static dev.agentauth.server.store.StoreConformance.runConcurrently;
import static dev.agentauth.server.store.StoreConformance.ulid;
import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.server.domain.AuthorizationRow;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Limits under concurrency: counters, budgets and idempotency records stay exact when many
 * transactions (separate or grouped) race.
 *
 * <p>Part of the store conformance suite: {@link StoreConformance} runs it on every store.
 */
interface ConcurrencyConformance extends StoreUnderTest {
  @Test
  default void concurrentTransactionsNeverExceedTheDailyLimitOrTheBudget() throws Exception {
    int threads = 8;
    int attempts = 50;
    long maxPerDay = 60;
    long budget = 1_000;
    long price = 13; // 76 purchases fit: 988
    write(tx -> tx.insertAuthorization(chargeAuthorization(authId(1), maxPerDay, budget)));
    List<long[]> results =
        runConcurrently(
            threads,
            thread -> {
              long allows = 0;
              long purchases = 0;
              for (int i = 0; i < attempts; i++) {
                boolean[] outcome =
                    store()
                        .inTransaction(
                            tx -> {
                              AuthorizationRow a =
                                  tx.authorizationForUpdate(WS_A, authId(1)).orElseThrow();
                              boolean allowed = false;
                              long count = tx.allowCount(WS_A, authId(1), "payments.charge", DAY);
                              if (count < maxPerDay) {
                                tx.addAllowCount(WS_A, authId(1), "payments.charge", DAY, 1);
                                allowed = true;
                              }
                              boolean bought = false;
                              if (a.budgetSpentMicros() + price <= a.budgetLimitMicros()) {
                                tx.updateAuthorization(
                                    a.withBudgetSpent(a.budgetSpentMicros() + price));
                                bought = true;
                              }
                              return new boolean[] {allowed, bought};
                            });
                allows += outcome[0] ? 1 : 0;
                purchases += outcome[1] ? 1 : 0;
              }
              return new long[] {allows, purchases};
            });
    long allows = results.stream().mapToLong(r -> r[0]).sum();
    long purchases = results.stream().mapToLong(r -> r[1]).sum();
    assertThat(allows).isEqualTo(maxPerDay);
    assertThat(purchases).isEqualTo(budget / price);
    read(
        tx -> {
          assertThat(tx.allowCount(WS_A, authId(1), "payments.charge", DAY)).isEqualTo(maxPerDay);
          assertThat(tx.authorization(WS_A, authId(1)).orElseThrow().budgetSpentMicros())
              .isEqualTo(budget / price * price);
          return null;
        });
  }

  /**
   * Grouped transactions (group commit) keep every guarantee of separate ones: under concurrent
   * checks on a few authorizations, allows and spend stop exactly at their limits, every committed
   * work's receipt is stored, and a work that throws leaves nothing behind while its group's other
   * works commit.
   */
  @Test
  default void concurrentGroupedTransactionsKeepLimitsAndLoseNothing() throws Exception {
    int threads = 8;
    int attempts = 40;
    int auths = 3;
    long maxPerDay = 50;
    long budget = 300;
    long price = 9; // 33 purchases fit: 297, before the 50 allows run out
    write(
        tx -> {
          for (int a = 1; a <= auths; a++) {
            tx.insertAuthorization(chargeAuthorization(authId(a), maxPerDay, budget));
          }
        });
    List<List<String>> committed =
        runConcurrently(
            threads,
            thread -> {
              List<String> receipts = new ArrayList<>();
              for (int i = 0; i < attempts; i++) {
                String authorizationId = authId(1 + (thread + i) % auths);
                String receiptId = "rcpt_" + ulid(1_000L * thread + i);
                boolean fails = (thread + i) % 7 == 0;
                try {
                  store()
                      .inGroupedTransaction(
                          new Store.GroupKey(WS_A, authorizationId, "doc:1"),
                          tx -> {
                            AuthorizationRow a =
                                tx.authorizationForCheck(WS_A, authorizationId, "doc:1")
                                    .authorization()
                                    .orElseThrow();
                            long count =
                                tx.allowCount(WS_A, authorizationId, "payments.charge", DAY);
                            boolean allowed = count < maxPerDay;
                            if (allowed) {
                              tx.addAllowCount(WS_A, authorizationId, "payments.charge", DAY, 1);
                            }
                            if (allowed && a.budgetSpentMicros() + price <= a.budgetLimitMicros()) {
                              tx.updateAuthorization(
                                  a.withBudgetSpent(a.budgetSpentMicros() + price));
                            }
                            tx.insertReceipt(
                                receipt(
                                    WS_A,
                                    receiptId,
                                    authorizationId,
                                    "user_1",
                                    "doc:1",
                                    null,
                                    "payments.charge",
                                    "check",
                                    allowed ? "allow" : "deny",
                                    T0));
                            if (fails) {
                              throw new IllegalStateException("work " + receiptId + " fails");
                            }
                            return null;
                          });
                  receipts.add(receiptId);
                } catch (IllegalStateException e) {
                  assertThat(fails).as("only the failing works throw").isTrue();
                  assertThat(e).hasMessage("work " + receiptId + " fails");
                }
              }
              return receipts;
            });
    List<String> ids = committed.stream().flatMap(List::stream).toList();
    int failing = 0;
    for (int t = 0; t < threads; t++) {
      for (int i = 0; i < attempts; i++) {
        failing += (t + i) % 7 == 0 ? 1 : 0;
      }
    }
    assertThat(ids).hasSize(threads * attempts - failing);
    read(
        tx -> {
          long allReceipts = 0;
          for (int a = 1; a <= auths; a++) {
            assertThat(tx.allowCount(WS_A, authId(a), "payments.charge", DAY))
                .as("allows of %s", authId(a))
                .isEqualTo(maxPerDay);
            assertThat(tx.authorization(WS_A, authId(a)).orElseThrow().budgetSpentMicros())
                .as("spend of %s", authId(a))
                .isEqualTo(budget / price * price);
            Page<ReceiptRow> page =
                tx.listReceipts(
                    WS_A,
                    new ReceiptFilter(authId(a), null, null, null, null, null, null, null, null),
                    new PageRequest(null, 1_000));
            allReceipts += page.items().size();
            assertThat(page.items().stream().filter(r -> r.decision().equals("allow")).count())
                .as("allow receipts of %s", authId(a))
                .isEqualTo(maxPerDay);
          }
          assertThat(allReceipts).isEqualTo(ids.size());
          for (String id : ids) {
            assertThat(tx.receipt(WS_A, id)).as(id).isPresent();
          }
          return null;
        });
  }

  @Test
  default void concurrentAddAllowCountsAreNeverLost() throws Exception {
    write(tx -> tx.insertAuthorization(auth(WS_A, authId(1), "user_1", "agent_1", at(3600))));
    runConcurrently(
        8,
        thread -> {
          for (int i = 0; i < 25; i++) {
            write(
                tx -> {
                  tx.authorizationForUpdate(WS_A, authId(1)).orElseThrow();
                  tx.addAllowCount(WS_A, authId(1), "calendar.read", DAY, 1);
                  tx.addAllowCount(WS_A, authId(1), "calendar.read", DAY.plusDays(thread % 2), 2);
                });
          }
          return null;
        });
    read(
        tx -> {
          assertThat(tx.allowCount(WS_A, authId(1), "calendar.read", DAY))
              .isEqualTo(200 + 4 * 25 * 2);
          assertThat(tx.allowCount(WS_A, authId(1), "calendar.read", DAY.plusDays(1)))
              .isEqualTo(4 * 25 * 2);
          return null;
        });
  }

  @Test
  default void concurrentIdempotencyInsertsUnderALockHappenOncePerKey() throws Exception {
    String apiKey = "5b".repeat(32);
    int keys = 5;
    List<List<String>> results =
        runConcurrently(
            8,
            thread -> {
              List<String> inserted = new ArrayList<>();
              for (int i = 0; i < 25; i++) {
                String key = "order-" + ((i + thread) % keys);
                boolean mine =
                    store()
                        .inTransaction(
                            tx -> {
                              tx.lock("idempotency/" + apiKey + "/" + key);
                              if (tx.idempotency(apiKey, key).isPresent()) {
                                return false;
                              }
                              tx.insertIdempotency(
                                  idem(
                                      apiKey,
                                      key,
                                      ("thread " + thread).getBytes(StandardCharsets.UTF_8),
                                      T0));
                              return true;
                            });
                if (mine) {
                  inserted.add(key);
                }
              }
              return inserted;
            });
    List<String> all = results.stream().flatMap(List::stream).toList();
    assertThat(all).hasSize(keys).doesNotHaveDuplicates();
    Set<String> expected = new HashSet<>();
    for (int k = 0; k < keys; k++) {
      expected.add("order-" + k);
    }
    assertThat(new HashSet<>(all)).isEqualTo(expected);
    for (int t = 0; t < results.size(); t++) {
      for (String key : results.get(t)) {
        int thread = t;
        assertThat(read((Tx tx) -> tx.idempotency(apiKey, key)).orElseThrow().body())
            .containsExactly(("thread " + thread).getBytes(StandardCharsets.UTF_8));
      }
    }
  }
}
