package dev.agentauth.server.store;

import static dev.agentauth.server.store.StoreConformance.T0;
import static dev.agentauth.server.store.StoreConformance.WS_A;
import static dev.agentauth.server.store.StoreConformance.WS_B;
import static dev.agentauth.server.store.StoreConformance.at;
import static dev.agentauth.server.store.StoreConformance.authId;
import static dev.agentauth.server.store.StoreConformance.nonce;
import static dev.agentauth.server.store.StoreConformance.ulid;
import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.server.domain.GrantRow;
import dev.agentauth.server.domain.NonceRow;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Confirmation nonces and the approval windows (grants) they open ({@link ConfirmationTx} and the
 * nonce and grant reads of {@link CheckTx}).
 *
 * <p>Part of the store conformance suite: {@link StoreConformance} runs it on every store.
 */
interface ConfirmationConformance extends StoreUnderTest {
  @Test
  default void nonceRoundTripsAndUpdatesConsumedAndApproved() {
    NonceRow n =
        nonce(
            WS_A,
            "cn_Xk3mP9qRt2vW8yZa1bC4dE6f",
            authId(1),
            "email.send",
            "mailto:bob@example.com",
            Instant.parse("2026-11-22T10:00:00.017Z"),
            Instant.parse("2026-11-22T10:05:00.017Z"));
    NonceRow noResource = nonce(WS_A, "cn_second", authId(1), "email.send", null, at(1), at(301));
    write(
        tx -> {
          tx.insertNonce(n);
          tx.insertNonce(noResource);
        });
    read(
        tx -> {
          assertThat(tx.nonce(WS_A, n.nonce())).contains(n);
          assertThat(tx.nonce(WS_A, noResource.nonce())).contains(noResource);
          assertThat(tx.nonce(WS_B, n.nonce())).isEmpty();
          assertThat(tx.nonce(WS_A, "cn_missing")).isEmpty();
          return null;
        });
    NonceRow approved = n.consumed(Instant.parse("2026-11-22T10:01:00.042Z"), true);
    NonceRow declined = noResource.consumed(at(2), false);
    write(
        tx -> {
          tx.updateNonce(approved);
          tx.updateNonce(declined);
        });
    read(
        tx -> {
          assertThat(tx.nonce(WS_A, n.nonce())).contains(approved);
          assertThat(tx.nonce(WS_A, n.nonce()).orElseThrow().approved()).isTrue();
          assertThat(tx.nonce(WS_A, noResource.nonce())).contains(declined);
          assertThat(tx.nonce(WS_A, noResource.nonce()).orElseThrow().approved()).isFalse();
          return null;
        });
  }

  @Test
  default void openNonceReturnsTheNewestOpenOneForTheTarget() {
    NonceRow n1 = nonce(WS_A, "cn_one", authId(1), "email.send", "doc:1", at(0), at(300));
    NonceRow n2 = nonce(WS_A, "cn_two", authId(1), "email.send", "doc:1", at(60), at(360));
    NonceRow nNull = nonce(WS_A, "cn_null", authId(1), "email.send", null, at(30), at(330));
    write(tx -> tx.insertNonce(n1));
    write(
        tx -> {
          tx.insertNonce(n2);
          tx.insertNonce(nNull);
        });
    read(
        tx -> {
          assertThat(tx.openNonce(WS_A, authId(1), "email.send", "doc:1", at(120))).contains(n2);
          assertThat(tx.openNonce(WS_A, authId(1), "email.send", null, at(120))).contains(nNull);
          assertThat(tx.openNonce(WS_A, authId(1), "email.send", "doc:2", at(120))).isEmpty();
          assertThat(tx.openNonce(WS_A, authId(1), "email.send", "", at(120))).isEmpty();
          assertThat(tx.openNonce(WS_A, authId(1), "calendar.read", "doc:1", at(120))).isEmpty();
          assertThat(tx.openNonce(WS_A, authId(2), "email.send", "doc:1", at(120))).isEmpty();
          assertThat(tx.openNonce(WS_B, authId(1), "email.send", "doc:1", at(120))).isEmpty();
          return null;
        });
  }

  @Test
  default void openNonceIgnoresConsumedAndExpiredNonces() {
    NonceRow consumed = nonce(WS_A, "cn_c", authId(1), "email.send", "doc:c", at(0), at(300));
    NonceRow expiring = nonce(WS_A, "cn_e", authId(1), "email.send", "doc:e", at(0), at(300));
    NonceRow nullRes = nonce(WS_A, "cn_n", authId(1), "email.send", null, at(0), at(300));
    write(
        tx -> {
          tx.insertNonce(consumed);
          tx.insertNonce(expiring);
          tx.insertNonce(nullRes);
        });
    write(
        tx -> {
          tx.updateNonce(consumed.consumed(at(10), true));
          tx.updateNonce(nullRes.consumed(at(10), false));
        });
    read(
        tx -> {
          assertThat(tx.openNonce(WS_A, authId(1), "email.send", "doc:c", at(20))).isEmpty();
          assertThat(tx.openNonce(WS_A, authId(1), "email.send", null, at(20))).isEmpty();
          assertThat(tx.openNonce(WS_A, authId(1), "email.send", "doc:e", at(300).minusMillis(1)))
              .contains(expiring);
          assertThat(tx.openNonce(WS_A, authId(1), "email.send", "doc:e", at(300))).isEmpty();
          assertThat(tx.openNonce(WS_A, authId(1), "email.send", "doc:e", at(301))).isEmpty();
          return null;
        });
  }

  @Test
  default void activeGrantFindsAnActiveWindowForTheExactTarget() {
    GrantRow g1 =
        new GrantRow(
            WS_A,
            "cfa_" + ulid(1),
            authId(1),
            "email.send",
            "doc:1",
            "cn_one",
            Instant.parse("2026-11-22T10:00:00.111Z"),
            Instant.parse("2026-11-22T10:10:00.222Z"),
            new GrantRow.ApprovedBy("key_01abc", "app", "api"));
    GrantRow gNull =
        new GrantRow(
            WS_A, "cfa_" + ulid(2), authId(1), "email.send", null, "cn_two", T0, at(60), null);
    write(
        tx -> {
          tx.insertGrant(g1);
          tx.insertGrant(gNull);
        });
    read(
        tx -> {
          assertThat(tx.activeGrant(WS_A, authId(1), "email.send", "doc:1", at(1))).contains(g1);
          assertThat(tx.activeGrant(WS_A, authId(1), "email.send", null, at(1))).contains(gNull);
          assertThat(tx.activeGrant(WS_A, authId(1), "email.send", null, at(120))).isEmpty();
          assertThat(tx.activeGrant(WS_A, authId(1), "email.send", "doc:1", at(120))).contains(g1);
          assertThat(tx.activeGrant(WS_A, authId(1), "email.send", "doc:1", g1.expiresAt()))
              .isEmpty();
          assertThat(
                  tx.activeGrant(
                      WS_A, authId(1), "email.send", "doc:1", g1.expiresAt().minusMillis(1)))
              .contains(g1);
          assertThat(tx.activeGrant(WS_A, authId(1), "email.send", "doc:2", at(1))).isEmpty();
          assertThat(tx.activeGrant(WS_A, authId(1), "calendar.read", "doc:1", at(1))).isEmpty();
          assertThat(tx.activeGrant(WS_A, authId(2), "email.send", "doc:1", at(1))).isEmpty();
          assertThat(tx.activeGrant(WS_B, authId(1), "email.send", "doc:1", at(1))).isEmpty();
          return null;
        });
  }

  @Test
  default void activeGrantPicksAGrantActiveAtNowAmongSeveral() {
    // doc:a: a short window then a long one; doc:b: a long window then a short one.
    GrantRow aShort =
        new GrantRow(
            WS_A, "cfa_" + ulid(1), authId(1), "email.send", "doc:a", "cn_1", T0, at(60), null);
    GrantRow aLong =
        new GrantRow(
            WS_A,
            "cfa_" + ulid(2),
            authId(1),
            "email.send",
            "doc:a",
            "cn_2",
            at(10),
            at(1200),
            null);
    GrantRow bLong =
        new GrantRow(
            WS_A, "cfa_" + ulid(3), authId(1), "email.send", "doc:b", "cn_3", T0, at(1200), null);
    GrantRow bShort =
        new GrantRow(
            WS_A, "cfa_" + ulid(4), authId(1), "email.send", "doc:b", "cn_4", at(10), at(60), null);
    write(tx -> tx.insertGrant(aShort));
    write(tx -> tx.insertGrant(aLong));
    write(tx -> tx.insertGrant(bLong));
    write(tx -> tx.insertGrant(bShort));
    read(
        tx -> {
          assertThat(tx.activeGrant(WS_A, authId(1), "email.send", "doc:a", at(300)))
              .contains(aLong);
          assertThat(tx.activeGrant(WS_A, authId(1), "email.send", "doc:b", at(300)))
              .contains(bLong);
          Optional<GrantRow> a = tx.activeGrant(WS_A, authId(1), "email.send", "doc:a", at(30));
          assertThat(a).isPresent();
          assertThat(a.orElseThrow().isActive(at(30))).isTrue();
          assertThat(a.orElseThrow()).isIn(aShort, aLong);
          Optional<GrantRow> b = tx.activeGrant(WS_A, authId(1), "email.send", "doc:b", at(30));
          assertThat(b).isPresent();
          assertThat(b.orElseThrow()).isIn(bShort, bLong);
          assertThat(tx.activeGrant(WS_A, authId(1), "email.send", "doc:b", at(1200))).isEmpty();
          return null;
        });
  }
}
