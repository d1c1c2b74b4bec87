package dev.agentauth.server.store;

import static dev.agentauth.server.store.StoreConformance.DAY;
import static dev.agentauth.server.store.StoreConformance.T0;
import static dev.agentauth.server.store.StoreConformance.WS_A;
import static dev.agentauth.server.store.StoreConformance.WS_B;
import static dev.agentauth.server.store.StoreConformance.apiKey;
import static dev.agentauth.server.store.StoreConformance.assertOneOfEverything;
import static dev.agentauth.server.store.StoreConformance.at;
import static dev.agentauth.server.store.StoreConformance.auth;
import static dev.agentauth.server.store.StoreConformance.authId;
import static dev.agentauth.server.store.StoreConformance.bundle;
import static dev.agentauth.server.store.StoreConformance.escalation;
import static dev.agentauth.server.store.StoreConformance.fullAuthorization;
import static dev.agentauth.server.store.StoreConformance.idem;
import static dev.agentauth.server.store.StoreConformance.nonce;
import static dev.agentauth.server.store.StoreConformance.pendingReceipt;
import static dev.agentauth.server.store.StoreConformance.signedJson;
import static dev.agentauth.server.store.StoreConformance.signingKey;
import static dev.agentauth.server.store.StoreConformance.ulid;
import static dev.agentauth.server.store.StoreConformance.writeOneOfEverything;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.model.EscalationStatus;
import dev.agentauth.server.domain.EscalationRow;
import dev.agentauth.server.domain.GrantRow;
import dev.agentauth.server.store.StoreConformance.WorkFailure;
import org.junit.jupiter.api.Test;

/**
 * Store basics, named locks and atomicity: work results, visibility of commits and of a
 * transaction's own writes, locks taken twice, and rollback of everything a failed unit of work
 * wrote, whatever failed.
 *
 * <p>Part of the store conformance suite: {@link StoreConformance} runs it on every store.
 */
interface TransactionConformance extends StoreUnderTest {
  @Test
  default void openStoreIsReachableAndDescribesItself() {
    assertThat(store().isReachable()).isTrue();
    assertThat(store().describe()).isNotBlank();
  }

  @Test
  default void inTransactionAndReadReturnTheWorkResult() {
    assertThat(store().inTransaction((Tx tx) -> "value")).isEqualTo("value");
    assertThat(store().read((Tx tx) -> 42)).isEqualTo(42);
    assertThat(store().inTransaction((Tx tx) -> (Object) null)).isNull();
  }

  @Test
  default void commitsAreVisibleToLaterTransactionsAndReads() {
    write(tx -> tx.insertWorkspace(new WorkspaceRow(WS_A, "free", T0)));
    assertThat(store().inTransaction((Tx tx) -> tx.workspace(WS_A)))
        .contains(new WorkspaceRow(WS_A, "free", T0));
    assertThat(read((Tx tx) -> tx.workspace(WS_A))).contains(new WorkspaceRow(WS_A, "free", T0));
    write(tx -> tx.addAllowCount(WS_A, authId(1), "calendar.read", DAY, 2));
    assertThat(read((Tx tx) -> tx.allowCount(WS_A, authId(1), "calendar.read", DAY))).isEqualTo(2);
  }

  @Test
  default void writesAreVisibleLaterInTheSameTransaction() {
    write(
        tx -> {
          tx.insertAuthorization(auth(WS_A, authId(1), "user_1", "agent_1", at(3600)));
          tx.addAllowCount(WS_A, authId(1), "calendar.read", DAY, 1);
          tx.insertReceipt(pendingReceipt(WS_A, ulid(1), at(0)));
          assertThat(tx.authorization(WS_A, authId(1))).isPresent();
          assertThat(tx.authorizationForUpdate(WS_A, authId(1))).isPresent();
          assertThat(tx.allowCount(WS_A, authId(1), "calendar.read", DAY)).isEqualTo(1);
          tx.addAllowCount(WS_A, authId(1), "calendar.read", DAY, 1);
          assertThat(tx.allowCount(WS_A, authId(1), "calendar.read", DAY)).isEqualTo(2);
          assertThat(tx.receipt(WS_A, ulid(1))).isPresent();
          assertThat(tx.pendingReceipts(null, 10))
              .extracting(ReceiptRow::receiptId)
              .contains(ulid(1));
          String text = signedJson(pendingReceipt(WS_A, ulid(1), at(0)), "c2lnbmVk");
          assertThat(tx.markSigned(WS_A, ulid(1), text)).isTrue();
          assertThat(tx.receipt(WS_A, ulid(1)).orElseThrow().signedJson()).isEqualTo(text);
        });
  }

  @Test
  default void lockCanBeTakenTwiceInOneTransaction() {
    write(
        tx -> {
          tx.lock("idempotency/" + "a".repeat(64) + "/order-1");
          tx.lock("idempotency/" + "a".repeat(64) + "/order-1");
          tx.lock("bundle/ws_a/assistant");
          tx.insertTombstone(new TombstoneRow(WS_A, "doc:locked", null, T0));
        });
    write(tx -> tx.lock("bundle/ws_a/assistant"));
    assertThat(read((Tx tx) -> tx.tombstone(WS_A, "doc:locked"))).isPresent();
  }

  @Test
  default void workThatThrowsAfterManyWritesLeavesNoTraceAndTheExceptionPropagatesUnchanged() {
    writeOneOfEverything(store());
    WorkFailure failure = new WorkFailure("boom after writes");
    assertThatThrownBy(
            () ->
                store()
                    .inTransaction(
                        tx -> {
                          tx.insertWorkspace(new WorkspaceRow(WS_B, "free", T0));
                          tx.insertApiKey(apiKey("b".repeat(64), WS_B, T0));
                          tx.insertSigningKey(signingKey(WS_B, "ws_b/01jdq4zk3m0001", 9, T0));
                          tx.updateSigningKey(
                              signingKey(WS_A, "ws_a/01jdq4zk3m0001", 3, at(-3400)).retiredAt(T0));
                          tx.insertAuthorization(fullAuthorization(WS_B, authId(7)));
                          tx.updateAuthorization(
                              fullAuthorization(WS_A, authId(1))
                                  .withBudgetSpent(99)
                                  .withRevokedAt(T0));
                          tx.addAllowCount(WS_A, authId(1), "calendar.read", DAY, 5);
                          tx.addAllowCount(WS_B, authId(7), "calendar.read", DAY, 1);
                          tx.insertNonce(
                              nonce(WS_A, "cn_new", authId(1), "email.send", "doc:9", T0, at(300)));
                          tx.updateNonce(
                              nonce(
                                      WS_A,
                                      "cn_everything",
                                      authId(1),
                                      "email.send",
                                      "doc:1",
                                      at(0),
                                      at(300))
                                  .consumed(at(1), true));
                          tx.insertGrant(
                              new GrantRow(
                                  WS_A,
                                  "cfa_new",
                                  authId(1),
                                  "email.send",
                                  "doc:9",
                                  "cn_new",
                                  T0,
                                  at(600),
                                  new GrantRow.ApprovedBy("key_01abc", "full", "console")));
                          tx.insertEscalation(
                              escalation(
                                  WS_A,
                                  "esc_new",
                                  authId(1),
                                  "payments.charge",
                                  null,
                                  "pending",
                                  at(5),
                                  at(900)));
                          tx.updateEscalation(
                              escalation(
                                      WS_A,
                                      "esc_" + ulid(1),
                                      authId(1),
                                      "payments.charge",
                                      null,
                                      "pending",
                                      at(0),
                                      at(3600))
                                  .resolved(
                                      EscalationStatus.Known.APPROVED,
                                      "alice",
                                      at(2),
                                      null,
                                      at(60)));
                          tx.upsertBundle(bundle(WS_A, "assistant", "agent_other", at(10)));
                          tx.upsertBundle(bundle(WS_A, "new-bundle", "agent_other", at(10)));
                          tx.insertTombstone(new TombstoneRow(WS_A, "doc:new", null, T0));
                          tx.insertReceipt(pendingReceipt(WS_A, ulid(2), at(3)));
                          assertThat(
                                  tx.markSigned(
                                      WS_A,
                                      ulid(1),
                                      signedJson(pendingReceipt(WS_A, ulid(1), at(0)), "MQ")))
                              .isTrue();
                          tx.insertIdempotency(idem("a".repeat(64), "idem-2", new byte[] {1}, T0));
                          assertThat(tx.purgeIdempotency(T0)).isEqualTo(1);
                          tx.lock("rollback-test");
                          throw failure;
                        }))
        .isSameAs(failure);
    assertOneOfEverything(store());
    read(
        tx -> {
          assertThat(tx.workspace(WS_B)).isEmpty();
          assertThat(tx.apiKey("b".repeat(64))).isEmpty();
          assertThat(tx.signingKeys(WS_B)).isEmpty();
          assertThat(tx.authorization(WS_B, authId(7))).isEmpty();
          assertThat(tx.allowCount(WS_B, authId(7), "calendar.read", DAY)).isZero();
          assertThat(tx.nonce(WS_A, "cn_new")).isEmpty();
          assertThat(tx.openNonce(WS_A, authId(1), "email.send", "doc:9", at(1))).isEmpty();
          assertThat(tx.activeGrant(WS_A, authId(1), "email.send", "doc:9", at(1))).isEmpty();
          assertThat(tx.escalation(WS_A, "esc_new")).isEmpty();
          assertThat(tx.latestEscalation(WS_A, authId(1), "payments.charge", null))
              .map(EscalationRow::escalationId)
              .contains("esc_" + ulid(1));
          assertThat(tx.bundle(WS_A, "new-bundle")).isEmpty();
          assertThat(tx.tombstone(WS_A, "doc:new")).isEmpty();
          assertThat(tx.receipt(WS_A, ulid(2))).isEmpty();
          assertThat(tx.pendingReceipts(null, 10))
              .containsExactly(pendingReceipt(WS_A, ulid(1), at(0)));
          assertThat(tx.idempotency("a".repeat(64), "idem-2")).isEmpty();
          return null;
        });
    // The store is still usable, and a committed transaction after the failed one persists.
    write(tx -> tx.insertWorkspace(new WorkspaceRow(WS_B, "free", T0)));
    assertThat(read((Tx tx) -> tx.workspace(WS_B))).isPresent();
  }

  @Test
  default void storeExceptionsAndErrorsFromWorkPropagateUnchangedAndRollBack() {
    StoreException storeFailure = new StoreException("work's own store failure");
    assertThatThrownBy(
            () ->
                write(
                    tx -> {
                      tx.insertTombstone(new TombstoneRow(WS_A, "doc:1", null, T0));
                      throw storeFailure;
                    }))
        .isSameAs(storeFailure);
    AssertionError error = new AssertionError("an error, not an exception");
    assertThatThrownBy(
            () ->
                write(
                    tx -> {
                      tx.insertTombstone(new TombstoneRow(WS_A, "doc:2", null, T0));
                      throw error;
                    }))
        .isSameAs(error);
    read(
        tx -> {
          assertThat(tx.tombstone(WS_A, "doc:1")).isEmpty();
          assertThat(tx.tombstone(WS_A, "doc:2")).isEmpty();
          return null;
        });
  }

  @Test
  default void aFailedStatementRollsBackTheEarlierWritesOfItsTransaction() {
    write(tx -> tx.insertReceipt(pendingReceipt(WS_A, ulid(1), at(0))));
    assertThatThrownBy(
            () ->
                write(
                    tx -> {
                      tx.insertTombstone(new TombstoneRow(WS_A, "doc:1", null, T0));
                      tx.addAllowCount(WS_A, authId(1), "calendar.read", DAY, 1);
                      tx.insertReceipt(pendingReceipt(WS_A, ulid(2), at(1)));
                      tx.insertReceipt(pendingReceipt(WS_A, ulid(1), at(2)));
                    }))
        .isInstanceOf(StoreException.class);
    read(
        tx -> {
          assertThat(tx.tombstone(WS_A, "doc:1")).isEmpty();
          assertThat(tx.allowCount(WS_A, authId(1), "calendar.read", DAY)).isZero();
          assertThat(tx.receipt(WS_A, ulid(2))).isEmpty();
          assertThat(tx.receipt(WS_A, ulid(1))).contains(pendingReceipt(WS_A, ulid(1), at(0)));
          return null;
        });
  }
}
