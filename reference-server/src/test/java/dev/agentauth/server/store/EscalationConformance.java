package dev.agentauth.server.store;

import static dev.agentauth.server.store.StoreConformance.T0;
import static dev.agentauth.server.store.StoreConformance.WS_A;
import static dev.agentauth.server.store.StoreConformance.WS_B;
import static dev.agentauth.server.store.StoreConformance.at;
import static dev.agentauth.server.store.StoreConformance.authId;
import static dev.agentauth.server.store.StoreConformance.escalation;
import static dev.agentauth.server.store.StoreConformance.ids;
import static dev.agentauth.server.store.StoreConformance.minimalAuthorization;
import static dev.agentauth.server.store.StoreConformance.ulid;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.model.EscalationStatus;
import dev.agentauth.server.domain.AuthorizationRow;
import dev.agentauth.server.domain.EscalationRow;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Escalations ({@link EscalationTx} and the escalation writes of {@link CheckTx}): round trips, the
 * latest per target, effective status after a revocation, and the filtered list.
 *
 * <p>Part of the store conformance suite: {@link StoreConformance} runs it on every store.
 */
interface EscalationConformance extends StoreUnderTest {
  @Test
  default void revokingAnAuthorizationEndsOnlyItsOpenEscalationsWhenRead() {
    EscalationRow open =
        escalation(WS_A, "esc_" + ulid(1), authId(1), "s", "r1", "pending", T0, at(600));
    EscalationRow lapsed =
        escalation(WS_A, "esc_" + ulid(2), authId(1), "s", "r2", "pending", T0, at(100));
    EscalationRow approved =
        escalation(WS_A, "esc_" + ulid(3), authId(1), "s", "r3", "pending", T0, at(600))
            .resolved(EscalationStatus.Known.APPROVED, "bob", at(1), null, at(500));
    EscalationRow rejected =
        escalation(WS_A, "esc_" + ulid(4), authId(1), "s", "r4", "pending", T0, at(600))
            .resolved(EscalationStatus.Known.REJECTED, "bob", at(1), null, null);
    EscalationRow otherAuthorization =
        escalation(WS_A, "esc_" + ulid(5), authId(2), "s", "r1", "pending", T0, at(600));
    EscalationRow otherWorkspace =
        escalation(WS_B, "esc_" + ulid(6), authId(1), "s", "r1", "pending", T0, at(600));
    EscalationRow alsoOpen =
        escalation(WS_A, "esc_" + ulid(7), authId(1), "t", null, "pending", T0, at(600));
    List<EscalationRow> all =
        List.of(open, lapsed, approved, rejected, otherAuthorization, otherWorkspace, alsoOpen);
    AuthorizationRow revokedOne = minimalAuthorization(WS_A, authId(1));
    write(
        tx -> {
          tx.insertAuthorization(revokedOne);
          tx.insertAuthorization(minimalAuthorization(WS_A, authId(2)));
          tx.insertAuthorization(minimalAuthorization(WS_B, authId(1)));
          all.forEach(tx::insertEscalation);
        });
    Instant revokedAt = Instant.parse("2026-11-22T10:03:20.123Z"); // at(200), with milliseconds

    // Atomic with its transaction: a failure after the revocation leaves every row as it was.
    assertThatThrownBy(
            () ->
                store()
                    .inTransaction(
                        (Tx tx) -> {
                          tx.updateAuthorization(revokedOne.withRevokedAt(revokedAt));
                          throw new IllegalStateException("boom");
                        }))
        .hasMessage("boom");
    read(
        tx -> {
          all.forEach(
              e -> assertThat(tx.escalation(e.workspaceId(), e.escalationId())).contains(e));
          return null;
        });

    write(tx -> tx.updateAuthorization(revokedOne.withRevokedAt(revokedAt)));
    read(
        tx -> {
          assertThat(tx.escalation(WS_A, open.escalationId())).contains(open.expiringAt(revokedAt));
          assertThat(tx.escalation(WS_A, alsoOpen.escalationId()))
              .contains(alsoOpen.expiringAt(revokedAt));
          assertThat(tx.latestEscalation(WS_A, authId(1), "t", null))
              .contains(alsoOpen.expiringAt(revokedAt));
          for (EscalationRow untouched :
              List.of(lapsed, approved, rejected, otherAuthorization, otherWorkspace)) {
            assertThat(tx.escalation(untouched.workspaceId(), untouched.escalationId()))
                .contains(untouched);
          }
          assertThat(
                  tx.escalation(WS_A, open.escalationId()).orElseThrow().effectiveStatus(revokedAt))
              .isEqualTo(EscalationStatus.Known.EXPIRED);
          assertThat(
                  ids(
                      tx.listEscalations(
                          new EscalationFilter(WS_A, EscalationStatus.Known.EXPIRED, revokedAt),
                          new PageRequest(null, 10)),
                      EscalationRow::escalationId))
              .containsExactly(open.escalationId(), lapsed.escalationId(), alsoOpen.escalationId());
          assertThat(
                  tx.listEscalations(
                          new EscalationFilter(WS_A, EscalationStatus.Known.EXPIRED, revokedAt),
                          new PageRequest(null, 10))
                      .items())
              .contains(open.expiringAt(revokedAt), alsoOpen.expiringAt(revokedAt));
          assertThat(
                  ids(
                      tx.listEscalations(
                          new EscalationFilter(WS_A, EscalationStatus.Known.PENDING, revokedAt),
                          new PageRequest(null, 10)),
                      EscalationRow::escalationId))
              .containsExactly(otherAuthorization.escalationId());
          assertThat(
                  ids(
                      tx.listEscalations(
                          new EscalationFilter(WS_A, EscalationStatus.Known.PENDING, revokedAt),
                          new PageRequest(null, 1)),
                      EscalationRow::escalationId))
              .containsExactly(otherAuthorization.escalationId());
          return null;
        });
  }

  @Test
  default void escalationRoundTripsAndUpdates() {
    EscalationRow e =
        new EscalationRow(
            WS_A,
            "esc_" + ulid(1),
            authId(1),
            "payments.charge",
            "invoice:2026-117",
            EscalationStatus.Known.PENDING,
            "finance-team",
            Instant.parse("2026-11-22T10:00:00.031Z"),
            Instant.parse("2026-11-23T10:00:00.031Z"),
            null,
            null,
            null,
            null,
            null);
    EscalationRow bare =
        new EscalationRow(
            WS_A,
            "esc_" + ulid(2),
            authId(1),
            "payments.charge",
            null,
            EscalationStatus.Known.PENDING,
            null,
            T0,
            at(600),
            null,
            null,
            null,
            null,
            null);
    write(
        tx -> {
          tx.insertEscalation(e);
          tx.insertEscalation(bare);
        });
    read(
        tx -> {
          assertThat(tx.escalation(WS_A, e.escalationId())).contains(e);
          assertThat(tx.escalation(WS_A, bare.escalationId())).contains(bare);
          assertThat(tx.escalation(WS_B, e.escalationId())).isEmpty();
          assertThat(tx.escalation(WS_A, "esc_missing")).isEmpty();
          return null;
        });
    EscalationRow approved =
        e.resolved(
            EscalationStatus.Known.APPROVED,
            "alice@example.com",
            Instant.parse("2026-11-22T10:02:00.500Z"),
            "ok for \u20ac 1,200",
            Instant.parse("2026-11-22T11:02:00.500Z"));
    write(tx -> tx.updateEscalation(approved));
    assertThat(read((Tx tx) -> tx.escalation(WS_A, e.escalationId()))).contains(approved);
    EscalationRow consumed = approved.approvalConsumed(Instant.parse("2026-11-22T10:03:00.001Z"));
    EscalationRow rejected =
        bare.resolved(EscalationStatus.Known.REJECTED, "bob", at(5), null, null);
    write(
        tx -> {
          tx.updateEscalation(consumed);
          tx.updateEscalation(rejected);
        });
    read(
        tx -> {
          assertThat(tx.escalation(WS_A, e.escalationId())).contains(consumed);
          assertThat(tx.escalation(WS_A, bare.escalationId())).contains(rejected);
          return null;
        });
  }

  @Test
  default void latestEscalationIsTheMostRecentlyInsertedForTheTarget() {
    EscalationRow e1 =
        escalation(
            WS_A,
            "esc_" + ulid(1),
            authId(1),
            "payments.charge",
            "inv:1",
            "pending",
            at(0),
            at(600));
    EscalationRow e2 =
        escalation(
            WS_A,
            "esc_" + ulid(2),
            authId(1),
            "payments.charge",
            "inv:1",
            "pending",
            at(10),
            at(610));
    EscalationRow eNull =
        escalation(
            WS_A, "esc_" + ulid(3), authId(1), "payments.charge", null, "pending", at(20), at(620));
    write(tx -> tx.insertEscalation(e1));
    write(tx -> tx.insertEscalation(e2));
    write(tx -> tx.insertEscalation(eNull));
    // Updating the older one does not make it the latest.
    EscalationRow e1Rejected =
        e1.resolved(EscalationStatus.Known.REJECTED, "bob", at(30), "no", null);
    write(tx -> tx.updateEscalation(e1Rejected));
    read(
        tx -> {
          assertThat(tx.latestEscalation(WS_A, authId(1), "payments.charge", "inv:1")).contains(e2);
          assertThat(tx.latestEscalation(WS_A, authId(1), "payments.charge", null)).contains(eNull);
          assertThat(tx.latestEscalation(WS_A, authId(1), "payments.charge", "inv:2")).isEmpty();
          assertThat(tx.latestEscalation(WS_A, authId(1), "email.send", "inv:1")).isEmpty();
          assertThat(tx.latestEscalation(WS_A, authId(2), "payments.charge", "inv:1")).isEmpty();
          assertThat(tx.latestEscalation(WS_B, authId(1), "payments.charge", "inv:1")).isEmpty();
          return null;
        });
    // The latest reflects updates to it.
    EscalationRow e2Approved =
        e2.resolved(EscalationStatus.Known.APPROVED, "alice", at(40), null, at(4000));
    write(tx -> tx.updateEscalation(e2Approved));
    assertThat(read((Tx tx) -> tx.latestEscalation(WS_A, authId(1), "payments.charge", "inv:1")))
        .contains(e2Approved);
    EscalationRow e4 =
        escalation(
            WS_A,
            "esc_" + ulid(4),
            authId(1),
            "payments.charge",
            "inv:1",
            "pending",
            at(50),
            at(650));
    write(tx -> tx.insertEscalation(e4));
    assertThat(read((Tx tx) -> tx.latestEscalation(WS_A, authId(1), "payments.charge", "inv:1")))
        .contains(e4);
  }

  @Test
  default void listEscalationsFiltersByEffectiveStatusAndPaginates() {
    String p = "payments.charge";
    write(
        tx -> {
          // e1 pending; e2 pending expiring exactly at T0 (expired); e3 approved past its
          // lifetime (stays approved); e4 rejected; e5 pending long expired; e6 other workspace.
          tx.insertEscalation(
              escalation(WS_A, "esc_" + ulid(1), authId(1), p, "r1", "pending", at(-60), at(3600)));
          tx.insertEscalation(
              escalation(WS_A, "esc_" + ulid(2), authId(1), p, "r2", "pending", at(-60), T0));
          tx.insertEscalation(
              escalation(
                      WS_A, "esc_" + ulid(3), authId(1), p, "r3", "pending", at(-7200), at(-3600))
                  .resolved(EscalationStatus.Known.APPROVED, "alice", at(-7000), null, at(-100)));
          tx.insertEscalation(
              escalation(WS_A, "esc_" + ulid(4), authId(1), p, "r4", "pending", at(-60), at(3600))
                  .resolved(EscalationStatus.Known.REJECTED, "bob", at(-30), "no", null));
          tx.insertEscalation(
              escalation(
                  WS_A, "esc_" + ulid(5), authId(1), p, null, "pending", at(-9000), at(-60)));
          tx.insertEscalation(
              escalation(WS_B, "esc_" + ulid(6), authId(1), p, "r6", "pending", at(-60), at(3600)));
        });
    read(
        tx -> {
          assertThat(
                  ids(
                      tx.listEscalations(
                          new EscalationFilter(WS_A, null, T0), new PageRequest(null, 10)),
                      EscalationRow::escalationId))
              .containsExactly(
                  "esc_" + ulid(1),
                  "esc_" + ulid(2),
                  "esc_" + ulid(3),
                  "esc_" + ulid(4),
                  "esc_" + ulid(5));
          assertThat(
                  ids(
                      tx.listEscalations(
                          new EscalationFilter(WS_A, EscalationStatus.Known.PENDING, T0),
                          new PageRequest(null, 10)),
                      EscalationRow::escalationId))
              .containsExactly("esc_" + ulid(1));
          assertThat(
                  ids(
                      tx.listEscalations(
                          new EscalationFilter(WS_A, EscalationStatus.Known.EXPIRED, T0),
                          new PageRequest(null, 10)),
                      EscalationRow::escalationId))
              .containsExactly("esc_" + ulid(2), "esc_" + ulid(5));
          assertThat(
                  ids(
                      tx.listEscalations(
                          new EscalationFilter(WS_A, EscalationStatus.Known.APPROVED, T0),
                          new PageRequest(null, 10)),
                      EscalationRow::escalationId))
              .containsExactly("esc_" + ulid(3));
          assertThat(
                  ids(
                      tx.listEscalations(
                          new EscalationFilter(WS_A, EscalationStatus.Known.REJECTED, T0),
                          new PageRequest(null, 10)),
                      EscalationRow::escalationId))
              .containsExactly("esc_" + ulid(4));
          // Earlier, e2 was still pending.
          assertThat(
                  ids(
                      tx.listEscalations(
                          new EscalationFilter(WS_A, EscalationStatus.Known.PENDING, at(-1)),
                          new PageRequest(null, 10)),
                      EscalationRow::escalationId))
              .containsExactly("esc_" + ulid(1), "esc_" + ulid(2));
          // Pagination, with and without a filter.
          Page<EscalationRow> p1 =
              tx.listEscalations(new EscalationFilter(WS_A, null, T0), new PageRequest(null, 2));
          assertThat(ids(p1, EscalationRow::escalationId))
              .containsExactly("esc_" + ulid(1), "esc_" + ulid(2));
          assertThat(p1.hasMore()).isTrue();
          Page<EscalationRow> p2 =
              tx.listEscalations(
                  new EscalationFilter(WS_A, null, T0), new PageRequest("esc_" + ulid(2), 2));
          assertThat(ids(p2, EscalationRow::escalationId))
              .containsExactly("esc_" + ulid(3), "esc_" + ulid(4));
          assertThat(p2.hasMore()).isTrue();
          Page<EscalationRow> p3 =
              tx.listEscalations(
                  new EscalationFilter(WS_A, null, T0), new PageRequest("esc_" + ulid(4), 2));
          assertThat(ids(p3, EscalationRow::escalationId)).containsExactly("esc_" + ulid(5));
          assertThat(p3.hasMore()).isFalse();
          Page<EscalationRow> x1 =
              tx.listEscalations(
                  new EscalationFilter(WS_A, EscalationStatus.Known.EXPIRED, T0),
                  new PageRequest(null, 1));
          assertThat(ids(x1, EscalationRow::escalationId)).containsExactly("esc_" + ulid(2));
          assertThat(x1.hasMore()).isTrue();
          Page<EscalationRow> x2 =
              tx.listEscalations(
                  new EscalationFilter(WS_A, EscalationStatus.Known.EXPIRED, T0),
                  new PageRequest("esc_" + ulid(2), 1));
          assertThat(ids(x2, EscalationRow::escalationId)).containsExactly("esc_" + ulid(5));
          assertThat(x2.hasMore()).isFalse();
          Page<EscalationRow> pend =
              tx.listEscalations(
                  new EscalationFilter(WS_A, EscalationStatus.Known.PENDING, T0),
                  new PageRequest(null, 1));
          assertThat(pend.hasMore()).isFalse();
          // Listed rows round-trip too.
          assertThat(
                  tx.listEscalations(
                          new EscalationFilter(WS_B, null, T0), new PageRequest(null, 10))
                      .items())
              .containsExactly(
                  escalation(
                      WS_B, "esc_" + ulid(6), authId(1), p, "r6", "pending", at(-60), at(3600)));
          return null;
        });
  }
}
