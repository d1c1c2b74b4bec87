package dev.agentauth.server.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.server.domain.AuthorizationRow;
import dev.agentauth.server.domain.NonceRow;
import dev.agentauth.server.domain.ScopeRule;
import dev.agentauth.server.store.CheckTx;
import dev.agentauth.server.store.ReceiptRow;
import dev.agentauth.server.store.Store.CheckWork;
import dev.agentauth.server.store.Store.GroupKey;
import dev.agentauth.server.store.Store.Work;
import dev.agentauth.server.store.StoreException;
import dev.agentauth.server.store.TombstoneRow;
import dev.agentauth.server.store.Tx;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Group commit on a JDBC store, made deterministic: the works of each test run as one group ({@link
 * JdbcStore#runAsOneGroup}), as they would when queued together by concurrent checks. A group must
 * behave as if its works ran one after the other: each sees what the earlier ones wrote, a work
 * that throws leaves nothing behind, and a failure that cannot be isolated inside the group makes
 * every work run again alone — never twice committed.
 */
abstract class GroupedTransactionsContract {
  static final String WS = "ws_g";
  static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");
  static final LocalDate DAY = LocalDate.parse("2026-11-22");
  static final String SCOPE = "payments.charge";

  JdbcStore store;

  abstract JdbcStore open();

  void afterClose() {}

  @BeforeEach
  void openStore() {
    store = open();
    store.inTransaction(
        tx -> {
          tx.insertAuthorization(authorization(auth(1), 100L));
          tx.insertAuthorization(authorization(auth(2), 100L));
          tx.insertAuthorization(authorization(auth(3), null)); // only the daily limit (3)
          tx.insertTombstone(new TombstoneRow(WS, "doc:gone", "deleted", T0));
          return null;
        });
  }

  @AfterEach
  void closeStore() {
    try {
      if (store != null) {
        store.close();
      }
    } finally {
      afterClose();
    }
  }

  static String auth(int n) {
    return "auth_g" + n;
  }

  static AuthorizationRow authorization(String id, Long budget) {
    return new AuthorizationRow(
        WS,
        id,
        "user_1",
        "agent_1",
        null,
        List.of(new ScopeRule(SCOPE, 3L, null, null)),
        List.of(),
        List.of(),
        Map.of(),
        T0.plusSeconds(86_400),
        budget,
        0L,
        T0,
        null,
        null);
  }

  static ReceiptRow receipt(String id, String authorizationId, String decision) {
    return new ReceiptRow(
        WS,
        id,
        authorizationId,
        "user_1",
        "doc:1",
        null,
        SCOPE,
        "check",
        decision,
        T0,
        "{\"decision\":\"" + decision + "\",\"receipt_id\":\"" + id + "\"}",
        null);
  }

  static GroupKey key(String authorizationId) {
    return new GroupKey(WS, authorizationId, "doc:1");
  }

  /** A check-like work: allow while under the daily limit (3) and the budget, spending 40 each. */
  static CheckWork<String> check(String authorizationId, String receiptId, AtomicInteger runs) {
    return tx -> {
      runs.incrementAndGet();
      AuthorizationRow a =
          tx.authorizationForCheck(WS, authorizationId, "doc:1").authorization().orElseThrow();
      long count = tx.allowCount(WS, authorizationId, SCOPE, DAY);
      boolean budgeted = a.budgetLimitMicros() != null;
      boolean allow =
          count < 3 && (!budgeted || a.budgetSpentMicros() + 40 <= a.budgetLimitMicros());
      if (allow) {
        tx.addAllowCount(WS, authorizationId, SCOPE, DAY, 1);
        if (budgeted) {
          tx.updateAuthorization(a.withBudgetSpent(a.budgetSpentMicros() + 40));
        }
      }
      String decision = allow ? "allow" : "deny";
      tx.insertReceipt(receipt(receiptId, authorizationId, decision));
      return decision;
    };
  }

  @SafeVarargs
  final List<Object> group(List<GroupKey> keys, CheckWork<?>... works) {
    return store.runAsOneGroup(keys, List.of(works));
  }

  <T> T read(Work<T> work) {
    return store.read(work);
  }

  long count(CheckTx tx, String authorizationId) {
    return tx.allowCount(WS, authorizationId, SCOPE, DAY);
  }

  @Test
  void worksOfOneGroupSeeEachOthersCountersAndSpend() {
    AtomicInteger runs = new AtomicInteger();
    List<Object> results =
        group(
            List.of(
                key(auth(1)),
                key(auth(2)),
                key(auth(1)),
                key(auth(1)),
                key(auth(2)),
                key(auth(3)),
                key(auth(3)),
                key(auth(3)),
                key(auth(3))),
            check(auth(1), "r1", runs),
            check(auth(2), "r2", runs),
            check(auth(1), "r3", runs),
            check(auth(1), "r4", runs),
            check(auth(2), "r5", runs),
            check(auth(3), "r6", runs),
            check(auth(3), "r7", runs),
            check(auth(3), "r8", runs),
            check(auth(3), "r9", runs));
    // auth 1: 40, 80, then 120 > 100 is denied; auth 2: 40, 80; auth 3: three allows a day.
    assertThat(results)
        .containsExactly(
            "allow", "allow", "allow", "deny", "allow", "allow", "allow", "allow", "deny");
    assertThat(runs).hasValue(9);
    read(
        tx -> {
          assertThat(count(tx, auth(1))).isEqualTo(2);
          assertThat(count(tx, auth(2))).isEqualTo(2);
          assertThat(count(tx, auth(3))).isEqualTo(3);
          assertThat(tx.authorization(WS, auth(1)).orElseThrow().budgetSpentMicros()).isEqualTo(80);
          assertThat(tx.authorization(WS, auth(2)).orElseThrow().budgetSpentMicros()).isEqualTo(80);
          for (String id : List.of("r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9")) {
            assertThat(tx.receipt(WS, id)).as(id).isPresent();
          }
          assertThat(tx.receipt(WS, "r4").orElseThrow().decision()).isEqualTo("deny");
          return null;
        });
  }

  @Test
  void aWorkThatThrowsIsUndoneAloneAndTheOthersCommitOnce() {
    AtomicInteger runs = new AtomicInteger();
    AtomicInteger failingRuns = new AtomicInteger();
    IllegalArgumentException boom = new IllegalArgumentException("bad check");
    CheckWork<String> failing =
        tx -> {
          failingRuns.incrementAndGet();
          check(auth(1), "r_bad", runs).run(tx);
          throw boom;
        };
    List<Object> results =
        group(
            List.of(key(auth(1)), key(auth(1)), key(auth(1))),
            check(auth(1), "r1", runs),
            failing,
            check(auth(1), "r2", runs));
    assertThat(results).containsExactly("allow", boom, "allow");
    assertThat(failingRuns).as("undone inside the group, not run again").hasValue(1);
    assertThat(runs).hasValue(3);
    read(
        tx -> {
          assertThat(count(tx, auth(1))).isEqualTo(2);
          assertThat(tx.authorization(WS, auth(1)).orElseThrow().budgetSpentMicros()).isEqualTo(80);
          assertThat(tx.receipt(WS, "r_bad")).isEmpty();
          assertThat(tx.receipt(WS, "r1")).isPresent();
          assertThat(tx.receipt(WS, "r2")).isPresent();
          return null;
        });
  }

  @Test
  void operationsOutsideTheGroupsBatchSeeEarlierWorksWrites() {
    NonceRow nonce =
        new NonceRow(WS, "n_1", auth(1), SCOPE, "doc:1", T0, T0.plusSeconds(600), null, null);
    AtomicInteger runs = new AtomicInteger();
    CheckWork<Object> writesNonce =
        tx -> {
          check(auth(1), "r1", runs).run(tx);
          tx.insertNonce(nonce);
          return "nonce written";
        };
    CheckWork<Object> readsBack =
        tx -> {
          // Sees both the counter kept for the batch and the nonce written at once.
          String found =
              tx.openNonce(WS, auth(1), SCOPE, "doc:1", T0.plusSeconds(1))
                  .map(NonceRow::nonce)
                  .orElse("none");
          return found + "/" + count(tx, auth(1));
        };
    List<Object> results = group(List.of(key(auth(1)), key(auth(1))), writesNonce, readsBack);
    assertThat(results).containsExactly("nonce written", "n_1/1");
  }

  @Test
  void aFailureThatCannotBeUndoneInTheGroupRunsEveryWorkAgainAlone() {
    AtomicInteger runs = new AtomicInteger();
    AtomicInteger failingRuns = new AtomicInteger();
    IllegalStateException boom = new IllegalStateException("fails after writing at once");
    CheckWork<String> failing =
        tx -> {
          failingRuns.incrementAndGet();
          tx.insertNonce(
              new NonceRow(
                  WS, "n_bad", auth(2), SCOPE, "doc:1", T0, T0.plusSeconds(600), null, null));
          throw boom;
        };
    List<Object> results =
        group(
            List.of(key(auth(1)), key(auth(2)), key(auth(1))),
            check(auth(1), "r1", runs),
            failing,
            check(auth(1), "r2", runs));
    assertThat(results).containsExactly("allow", boom, "allow");
    assertThat(failingRuns).as("once in the group, once alone").hasValue(2);
    // The group stops at the failing work: the first ran in the group and again alone, the last
    // only alone.
    assertThat(runs).hasValue(3);
    read(
        tx -> {
          assertThat(count(tx, auth(1))).as("committed once").isEqualTo(2);
          assertThat(tx.authorization(WS, auth(1)).orElseThrow().budgetSpentMicros()).isEqualTo(80);
          assertThat(tx.nonce(WS, "n_bad")).isEmpty();
          assertThat(tx.receipt(WS, "r1")).isPresent();
          assertThat(tx.receipt(WS, "r2")).isPresent();
          return null;
        });
  }

  @Test
  void aStatementFailureAtTheGroupsEndIsPinnedOnItsWorkAlone() {
    AtomicInteger runs = new AtomicInteger();
    // Two works insert the same receipt id: the group's batch insert fails, so each work runs
    // again alone and only the second one fails.
    List<Object> results =
        group(
            List.of(key(auth(1)), key(auth(2)), key(auth(3))),
            check(auth(1), "r_same", runs),
            check(auth(2), "r_same", runs),
            check(auth(3), "r3", runs));
    assertThat(results.get(0)).isEqualTo("allow");
    assertThat(results.get(1)).isInstanceOf(StoreException.class);
    assertThat(results.get(2)).isEqualTo("allow");
    read(
        tx -> {
          assertThat(tx.receipt(WS, "r_same").orElseThrow().authorizationId()).isEqualTo(auth(1));
          assertThat(count(tx, auth(1))).isEqualTo(1);
          assertThat(count(tx, auth(2))).as("the failed work left nothing").isZero();
          assertThat(count(tx, auth(3))).isEqualTo(1);
          return null;
        });
  }

  /** A work that reports what its check reads: "id/tombstoned/spent/status". */
  static CheckWork<Object> readTarget(GroupKey k) {
    return tx -> {
      Tx.CheckTarget t =
          tx.authorizationForCheck(k.workspaceId(), k.authorizationId(), k.resource());
      return t.authorization()
          .map(
              a ->
                  a.authorizationId()
                      + "/"
                      + t.resourceTombstoned()
                      + "/"
                      + a.budgetSpentMicros()
                      + "/"
                      + a.status(T0.plusSeconds(60)).wireName())
          .orElse("none");
    };
  }

  @Test
  void eachGroupSeesWhatWasCommittedBeforeIt() {
    GroupKey k = new GroupKey(WS, auth(1), "doc:1");
    GroupKey other = new GroupKey(WS, auth(2), "doc:1");
    assertThat(group(List.of(k, other), readTarget(k), readTarget(other)))
        .containsExactly(auth(1) + "/false/0/active", auth(2) + "/false/0/active");
    store.inTransaction(
        tx -> {
          tx.insertTombstone(new TombstoneRow(WS, "doc:1", null, T0));
          AuthorizationRow a = tx.authorizationForUpdate(WS, auth(1)).orElseThrow();
          tx.updateAuthorization(a.withBudgetSpent(55).withRevokedAt(T0));
          return null;
        });
    assertThat(group(List.of(k, other), readTarget(k), readTarget(other)))
        .containsExactly(auth(1) + "/true/55/revoked", auth(2) + "/true/0/active");
  }

  @Test
  void unknownAuthorizationsAndTombstonedResourcesAreReportedPerWork() {
    List<GroupKey> keys =
        List.of(
            new GroupKey(WS, auth(1), "doc:gone"),
            new GroupKey(WS, "auth_missing", "doc:1"),
            new GroupKey(WS, auth(1), "doc:1"),
            new GroupKey(WS, auth(2), null));
    List<CheckWork<?>> works = new ArrayList<>();
    for (GroupKey k : keys) {
      works.add(
          tx -> {
            Tx.CheckTarget t =
                tx.authorizationForCheck(k.workspaceId(), k.authorizationId(), k.resource());
            return t.authorization().map(AuthorizationRow::authorizationId).orElse("none")
                + "/"
                + t.resourceTombstoned();
          });
    }
    assertThat(store.runAsOneGroup(keys, works))
        .containsExactly(auth(1) + "/true", "none/false", auth(1) + "/false", auth(2) + "/false");
  }
}
