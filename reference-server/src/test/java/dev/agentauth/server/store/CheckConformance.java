package dev.agentauth.server.store;

import static dev.agentauth.server.store.StoreConformance.DAY;
import static dev.agentauth.server.store.StoreConformance.T0;
import static dev.agentauth.server.store.StoreConformance.WS_A;
import static dev.agentauth.server.store.StoreConformance.WS_B;
import static dev.agentauth.server.store.StoreConformance.authId;
import static dev.agentauth.server.store.StoreConformance.fullAuthorization;
import static dev.agentauth.server.store.StoreConformance.target;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.server.domain.AuthorizationRow;
import dev.agentauth.server.store.StoreConformance.WorkFailure;
import java.time.LocalDate;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * What a check reads and counts ({@link CheckTx}): daily allow counters, and {@code
 * authorizationForCheck}, which locks the authorization and tells whether the resource is
 * tombstoned, always as committed.
 *
 * <p>Part of the store conformance suite: {@link StoreConformance} runs it on every store.
 */
interface CheckConformance extends StoreUnderTest {
  @Test
  default void allowCountStartsAtZeroAndAccumulates() {
    assertThat(read((Tx tx) -> tx.allowCount(WS_A, authId(1), "calendar.read", DAY))).isZero();
    write(tx -> tx.addAllowCount(WS_A, authId(1), "calendar.read", DAY, 1));
    write(tx -> tx.addAllowCount(WS_A, authId(1), "calendar.read", DAY, 4));
    assertThat(read((Tx tx) -> tx.allowCount(WS_A, authId(1), "calendar.read", DAY))).isEqualTo(5);
    write(tx -> tx.addAllowCount(WS_A, authId(1), "calendar.read", DAY, 3_000_000_000L));
    assertThat(read((Tx tx) -> tx.allowCount(WS_A, authId(1), "calendar.read", DAY)))
        .isEqualTo(3_000_000_005L);
  }

  @Test
  default void allowCountsOfOtherDaysScopesAuthorizationsAndWorkspacesAreIndependent() {
    LocalDate next = DAY.plusDays(1);
    write(
        tx -> {
          tx.addAllowCount(WS_A, authId(1), "calendar.read", DAY, 2);
          tx.addAllowCount(WS_A, authId(1), "calendar.read", next, 7);
          tx.addAllowCount(WS_A, authId(1), "email.send", DAY, 11);
          tx.addAllowCount(WS_A, authId(2), "calendar.read", DAY, 13);
          tx.addAllowCount(WS_B, authId(1), "calendar.read", DAY, 17);
        });
    write(tx -> tx.addAllowCount(WS_A, authId(1), "calendar.read", DAY, 1));
    read(
        tx -> {
          assertThat(tx.allowCount(WS_A, authId(1), "calendar.read", DAY)).isEqualTo(3);
          assertThat(tx.allowCount(WS_A, authId(1), "calendar.read", next)).isEqualTo(7);
          assertThat(tx.allowCount(WS_A, authId(1), "calendar.read", DAY.minusDays(1))).isZero();
          assertThat(tx.allowCount(WS_A, authId(1), "email.send", DAY)).isEqualTo(11);
          assertThat(tx.allowCount(WS_A, authId(2), "calendar.read", DAY)).isEqualTo(13);
          assertThat(tx.allowCount(WS_B, authId(1), "calendar.read", DAY)).isEqualTo(17);
          assertThat(tx.allowCount(WS_B, authId(2), "calendar.read", DAY)).isZero();
          return null;
        });
  }

  @Test
  default void authorizationForCheckLocksTheAuthorizationAndTellsWhetherTheResourceIsTombstoned() {
    AuthorizationRow a = fullAuthorization(WS_A, authId(1));
    write(
        tx -> {
          tx.insertAuthorization(a);
          tx.insertAuthorization(fullAuthorization(WS_B, authId(2)));
          tx.insertTombstone(new TombstoneRow(WS_A, "doc:gone", "legal hold", T0));
          tx.insertTombstone(new TombstoneRow(WS_B, "doc:b-only", null, T0));
        });
    store()
        .inTransaction(
            (Tx tx) -> {
              assertThat(tx.authorizationForCheck(WS_A, authId(1), "doc:gone"))
                  .isEqualTo(new Tx.CheckTarget(java.util.Optional.of(a), true));
              assertThat(tx.authorizationForCheck(WS_A, authId(1), "doc:kept"))
                  .isEqualTo(new Tx.CheckTarget(java.util.Optional.of(a), false));
              assertThat(tx.authorizationForCheck(WS_A, authId(1), null))
                  .isEqualTo(new Tx.CheckTarget(java.util.Optional.of(a), false));
              // Another workspace's tombstone does not count; another workspace's row is invisible.
              assertThat(
                      tx.authorizationForCheck(WS_A, authId(1), "doc:b-only").resourceTombstoned())
                  .isFalse();
              assertThat(tx.authorizationForCheck(WS_A, authId(2), "doc:gone"))
                  .isEqualTo(new Tx.CheckTarget(java.util.Optional.empty(), false));
              assertThat(tx.authorizationForCheck(WS_A, authId(9), null))
                  .isEqualTo(new Tx.CheckTarget(java.util.Optional.empty(), false));
              return null;
            });
  }

  @Test
  default void authorizationForCheckSeesEveryCommittedWriteToTheAuthorizationAndTombstones() {
    AuthorizationRow a = fullAuthorization(WS_A, authId(1));
    write(tx -> tx.insertAuthorization(a));
    // Read once, as a check would (a store may keep what it read), then change what was read.
    assertThat(checkTarget(authId(1), "doc:later")).isEqualTo(target(a, false));
    AuthorizationRow spent = a.withBudgetSpent(a.budgetSpentMicros() + 7);
    write(tx -> tx.updateAuthorization(spent));
    assertThat(checkTarget(authId(1), "doc:later")).isEqualTo(target(spent, false));
    write(tx -> tx.insertTombstone(new TombstoneRow(WS_A, "doc:later", "erased", T0)));
    assertThat(checkTarget(authId(1), "doc:later")).isEqualTo(target(spent, true));
    AuthorizationRow revoked = spent.withRevokedAt(T0.plusSeconds(5));
    // Within one transaction too: a write is seen by the next check of the same transaction.
    store()
        .inTransaction(
            (Tx tx) -> {
              assertThat(tx.authorizationForCheck(WS_A, authId(1), null))
                  .isEqualTo(target(spent, false));
              tx.updateAuthorization(revoked);
              assertThat(tx.authorizationForCheck(WS_A, authId(1), null))
                  .isEqualTo(target(revoked, false));
              return null;
            });
    assertThat(checkTarget(authId(1), "doc:later")).isEqualTo(target(revoked, true));
  }

  @Test
  default void authorizationForCheckForgetsWhatARolledBackTransactionWrote() {
    AuthorizationRow a = fullAuthorization(WS_A, authId(1));
    write(tx -> tx.insertAuthorization(a));
    assertThat(checkTarget(authId(1), "doc:1")).isEqualTo(target(a, false));
    AuthorizationRow created = fullAuthorization(WS_A, authId(2));
    assertThatThrownBy(
            () ->
                store()
                    .inTransaction(
                        (Tx tx) -> {
                          tx.insertAuthorization(created);
                          tx.updateAuthorization(a.withRevokedAt(T0));
                          tx.insertTombstone(new TombstoneRow(WS_A, "doc:1", null, T0));
                          // Read inside the doomed transaction, as a check in the same batch would.
                          assertThat(tx.authorizationForCheck(WS_A, authId(2), "doc:1"))
                              .isEqualTo(target(created, true));
                          assertThat(tx.authorizationForCheck(WS_A, authId(1), "doc:1"))
                              .isEqualTo(target(a.withRevokedAt(T0), true));
                          throw new WorkFailure("undo all of it");
                        }))
        .isInstanceOf(WorkFailure.class);
    assertThat(checkTarget(authId(2), "doc:1"))
        .isEqualTo(new Tx.CheckTarget(Optional.empty(), false));
    assertThat(checkTarget(authId(1), "doc:1")).isEqualTo(target(a, false));
  }
}
