package dev.agentauth.server.store;

import static dev.agentauth.server.store.StoreConformance.JSON;
import static dev.agentauth.server.store.StoreConformance.T0;
import static dev.agentauth.server.store.StoreConformance.WS_A;
import static dev.agentauth.server.store.StoreConformance.WS_B;
import static dev.agentauth.server.store.StoreConformance.assertAuthorization;
import static dev.agentauth.server.store.StoreConformance.at;
import static dev.agentauth.server.store.StoreConformance.auth;
import static dev.agentauth.server.store.StoreConformance.authId;
import static dev.agentauth.server.store.StoreConformance.fullAuthorization;
import static dev.agentauth.server.store.StoreConformance.ids;
import static dev.agentauth.server.store.StoreConformance.minimalAuthorization;
import static dev.agentauth.server.store.StoreConformance.richMetadata;
import static dev.agentauth.server.store.StoreConformance.richScopes;
import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.model.AuthorizationStatus;
import dev.agentauth.server.domain.AuthorizationRow;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Authorizations ({@link AuthorizationTx} and {@code updateAuthorization}): exact round trips of
 * every column, workspace scoping, locking reads, updates, and the filtered, keyset-paginated list.
 *
 * <p>Part of the store conformance suite: {@link StoreConformance} runs it on every store.
 */
interface AuthorizationConformance extends StoreUnderTest {
  @Test
  default void authorizationRoundTripsEveryColumnExactly() {
    AuthorizationRow full = fullAuthorization(WS_A, authId(1));
    AuthorizationRow minimal = minimalAuthorization(WS_A, authId(2));
    write(
        tx -> {
          tx.insertAuthorization(full);
          tx.insertAuthorization(minimal);
        });
    read(
        tx -> {
          AuthorizationRow f = tx.authorization(WS_A, authId(1)).orElseThrow();
          assertAuthorization(f, full);
          assertThat(f.scopes()).containsExactlyElementsOf(richScopes());
          assertThat(f.scopes().get(1).hasConstraints()).isFalse();
          assertThat(f.scopes().get(2).allowedInitiators()).isEmpty();
          assertThat(f.scopes().get(1).allowedInitiators()).isNull();
          assertThat(f.metadata()).isEqualTo(richMetadata());
          assertThat(f.escalationTargets().keySet())
              .containsExactly("payments.charge", "email.send", "calendar.write");
          AuthorizationRow m = tx.authorization(WS_A, authId(2)).orElseThrow();
          assertAuthorization(m, minimal);
          assertThat(m.metadata()).isNull();
          assertThat(m.budgetLimitMicros()).isNull();
          assertThat(m.bundleId()).isNull();
          assertThat(m.revokedAt()).isNull();
          assertThat(tx.authorization(WS_A, authId(3))).isEmpty();
          return null;
        });
  }

  @Test
  default void emptyMetadataObjectStaysAnEmptyObject() {
    AuthorizationRow row = minimalAuthorization(WS_A, authId(1));
    AuthorizationRow withEmpty =
        new AuthorizationRow(
            row.workspaceId(),
            row.authorizationId(),
            row.userId(),
            row.agentId(),
            row.bundleId(),
            row.scopes(),
            row.requiresConfirmFor(),
            row.requiresEscalationFor(),
            row.escalationTargets(),
            row.expiresAt(),
            0L,
            0L,
            row.createdAt(),
            row.revokedAt(),
            JSON.createObjectNode());
    write(tx -> tx.insertAuthorization(withEmpty));
    AuthorizationRow back = read(tx -> tx.authorization(WS_A, authId(1))).orElseThrow();
    assertAuthorization(back, withEmpty);
    assertThat(back.metadata()).isNotNull().isEmpty();
    assertThat(back.budgetLimitMicros()).isZero();
  }

  @Test
  default void authorizationsOfAnotherWorkspaceAreInvisible() {
    write(
        tx -> {
          tx.insertAuthorization(fullAuthorization(WS_A, authId(1)));
          tx.insertAuthorization(auth(WS_B, authId(2), "user_7f3a", "agent_scheduler", at(60)));
        });
    store()
        .inTransaction(
            tx -> {
              assertThat(tx.authorization(WS_B, authId(1))).isEmpty();
              assertThat(tx.authorizationForUpdate(WS_B, authId(1))).isEmpty();
              assertThat(tx.authorization(WS_A, authId(2))).isEmpty();
              assertThat(
                      ids(
                          tx.listAuthorizations(
                              new AuthorizationFilter(WS_B, null, null, null, T0),
                              new PageRequest(null, 10)),
                          AuthorizationRow::authorizationId))
                  .containsExactly(authId(2));
              assertThat(
                      ids(
                          tx.listAuthorizations(
                              new AuthorizationFilter(WS_A, "user_7f3a", null, null, T0),
                              new PageRequest(null, 10)),
                          AuthorizationRow::authorizationId))
                  .containsExactly(authId(1));
              assertThat(
                      tx.listAuthorizations(
                              new AuthorizationFilter("ws_none", null, null, null, T0),
                              new PageRequest(null, 10))
                          .items())
                  .isEmpty();
              return null;
            });
  }

  @Test
  default void authorizationForUpdateReturnsTheRow() {
    AuthorizationRow full = fullAuthorization(WS_A, authId(1));
    write(tx -> tx.insertAuthorization(full));
    store()
        .inTransaction(
            tx -> {
              assertAuthorization(tx.authorizationForUpdate(WS_A, authId(1)).orElseThrow(), full);
              assertThat(tx.authorizationForUpdate(WS_A, authId(9))).isEmpty();
              return null;
            });
  }

  @Test
  default void updateAuthorizationChangesBudgetSpentAndRevokedAt() {
    AuthorizationRow full = fullAuthorization(WS_A, authId(1));
    AuthorizationRow other = fullAuthorization(WS_A, authId(2));
    write(
        tx -> {
          tx.insertAuthorization(full);
          tx.insertAuthorization(other);
        });
    AuthorizationRow spent = full.withBudgetSpent(4_999_999_999_999L);
    write(
        tx ->
            tx.updateAuthorization(
                tx.authorizationForUpdate(WS_A, authId(1))
                    .orElseThrow()
                    .withBudgetSpent(4_999_999_999_999L)));
    assertAuthorization(read(tx -> tx.authorization(WS_A, authId(1))).orElseThrow(), spent);
    AuthorizationRow revoked = spent.withRevokedAt(Instant.parse("2026-11-22T10:30:00.250Z"));
    write(tx -> tx.updateAuthorization(revoked));
    read(
        tx -> {
          AuthorizationRow back = tx.authorization(WS_A, authId(1)).orElseThrow();
          assertAuthorization(back, revoked);
          assertThat(back.status(T0))
              .isEqualTo(dev.agentauth.model.AuthorizationStatus.Known.REVOKED);
          assertAuthorization(tx.authorization(WS_A, authId(2)).orElseThrow(), other);
          return null;
        });
  }

  /** Rows for the listing tests; {@code now} is {@link StoreConformance#T0}. */
  private void insertListingAuthorizations() {
    write(
        tx -> {
          // a1: active; a2: expires exactly at T0 (expired at T0); a3: revoked, not yet expired;
          // a4: revoked and expired (revoked wins); a5: active; a6: other workspace.
          tx.insertAuthorization(auth(WS_A, authId(1), "user_1", "agent_g1", at(3600)));
          tx.insertAuthorization(auth(WS_A, authId(2), "user_1", "agent_g2", T0));
          tx.insertAuthorization(
              auth(WS_A, authId(3), "user_2", "agent_g1", at(3600)).withRevokedAt(at(-60)));
          tx.insertAuthorization(
              auth(WS_A, authId(4), "user_2", "agent_g2", at(-3600)).withRevokedAt(at(-7200)));
          tx.insertAuthorization(auth(WS_A, authId(5), "user_1", "agent_g1", at(7200)));
          tx.insertAuthorization(auth(WS_B, authId(6), "user_1", "agent_g1", at(7200)));
        });
  }

  private List<String> listAuthIds(String user, String agent, String status, Instant now) {
    return read(
        tx ->
            ids(
                tx.listAuthorizations(
                    new AuthorizationFilter(
                        WS_A,
                        user,
                        agent,
                        status == null
                            ? null
                            : AuthorizationStatus.of(status).known().orElseThrow(),
                        now),
                    new PageRequest(null, 100)),
                AuthorizationRow::authorizationId));
  }

  @Test
  default void listAuthorizationsFiltersByUserAgentAndStatusAtNow() {
    insertListingAuthorizations();
    assertThat(listAuthIds(null, null, null, T0))
        .containsExactly(authId(1), authId(2), authId(3), authId(4), authId(5));
    assertThat(listAuthIds("user_1", null, null, T0))
        .containsExactly(authId(1), authId(2), authId(5));
    assertThat(listAuthIds(null, "agent_g1", null, T0))
        .containsExactly(authId(1), authId(3), authId(5));
    assertThat(listAuthIds("user_2", "agent_g2", null, T0)).containsExactly(authId(4));
    assertThat(listAuthIds(null, null, "active", T0)).containsExactly(authId(1), authId(5));
    assertThat(listAuthIds(null, null, "revoked", T0)).containsExactly(authId(3), authId(4));
    assertThat(listAuthIds(null, null, "expired", T0)).containsExactly(authId(2));
    assertThat(listAuthIds("user_1", "agent_g1", "active", T0))
        .containsExactly(authId(1), authId(5));
    assertThat(listAuthIds("user_2", null, "expired", T0)).isEmpty();
    assertThat(listAuthIds("user_nobody", null, null, T0)).isEmpty();
    // The same rows evaluated at a later now: a1 expired exactly at its expiry.
    assertThat(listAuthIds(null, null, "active", at(3600))).containsExactly(authId(5));
    assertThat(listAuthIds(null, null, "expired", at(3600))).containsExactly(authId(1), authId(2));
    assertThat(listAuthIds(null, null, "active", at(-1)))
        .containsExactly(authId(1), authId(2), authId(5));
    assertThat(listAuthIds(null, null, "expired", at(-1))).isEmpty();
  }

  @Test
  default void listAuthorizationsPaginatesWithAfterIdLimitAndHasMore() {
    write(
        tx -> {
          for (int i = 1; i <= 7; i++) {
            tx.insertAuthorization(
                auth(
                    WS_A,
                    authId(i * 10),
                    i % 2 == 0 ? "user_even" : "user_odd",
                    "agent_1",
                    at(60)));
          }
        });
    read(
        tx -> {
          Page<AuthorizationRow> p1 =
              tx.listAuthorizations(
                  new AuthorizationFilter(WS_A, null, null, null, T0), new PageRequest(null, 3));
          assertThat(ids(p1, AuthorizationRow::authorizationId))
              .containsExactly(authId(10), authId(20), authId(30));
          assertThat(p1.hasMore()).isTrue();
          Page<AuthorizationRow> p2 =
              tx.listAuthorizations(
                  new AuthorizationFilter(WS_A, null, null, null, T0),
                  new PageRequest(authId(30), 3));
          assertThat(ids(p2, AuthorizationRow::authorizationId))
              .containsExactly(authId(40), authId(50), authId(60));
          assertThat(p2.hasMore()).isTrue();
          Page<AuthorizationRow> p3 =
              tx.listAuthorizations(
                  new AuthorizationFilter(WS_A, null, null, null, T0),
                  new PageRequest(authId(60), 3));
          assertThat(ids(p3, AuthorizationRow::authorizationId)).containsExactly(authId(70));
          assertThat(p3.hasMore()).isFalse();
          // Exactly the remaining rows: no more.
          Page<AuthorizationRow> exact =
              tx.listAuthorizations(
                  new AuthorizationFilter(WS_A, null, null, null, T0),
                  new PageRequest(authId(40), 3));
          assertThat(ids(exact, AuthorizationRow::authorizationId))
              .containsExactly(authId(50), authId(60), authId(70));
          assertThat(exact.hasMore()).isFalse();
          // A cursor that is not an existing id, and one past the end.
          assertThat(
                  ids(
                      tx.listAuthorizations(
                          new AuthorizationFilter(WS_A, null, null, null, T0),
                          new PageRequest(authId(35), 2)),
                      AuthorizationRow::authorizationId))
              .containsExactly(authId(40), authId(50));
          Page<AuthorizationRow> end =
              tx.listAuthorizations(
                  new AuthorizationFilter(WS_A, null, null, null, T0),
                  new PageRequest(authId(70), 3));
          assertThat(end.items()).isEmpty();
          assertThat(end.hasMore()).isFalse();
          // hasMore counts only rows that pass the filter: after 50 no odd row but 70 is odd.
          Page<AuthorizationRow> odd =
              tx.listAuthorizations(
                  new AuthorizationFilter(WS_A, "user_odd", null, null, T0),
                  new PageRequest(null, 3));
          assertThat(ids(odd, AuthorizationRow::authorizationId))
              .containsExactly(authId(10), authId(30), authId(50));
          assertThat(odd.hasMore()).isTrue();
          Page<AuthorizationRow> even =
              tx.listAuthorizations(
                  new AuthorizationFilter(WS_A, "user_even", null, null, T0),
                  new PageRequest(null, 3));
          assertThat(ids(even, AuthorizationRow::authorizationId))
              .containsExactly(authId(20), authId(40), authId(60));
          assertThat(even.hasMore()).isFalse();
          Page<AuthorizationRow> one =
              tx.listAuthorizations(
                  new AuthorizationFilter(WS_A, null, null, null, T0), new PageRequest(null, 1));
          assertThat(ids(one, AuthorizationRow::authorizationId)).containsExactly(authId(10));
          assertThat(one.hasMore()).isTrue();
          return null;
        });
  }
}
