package dev.agentauth.server.store;

import static dev.agentauth.server.store.StoreConformance.T0;
import static dev.agentauth.server.store.StoreConformance.WS_A;
import static dev.agentauth.server.store.StoreConformance.WS_B;
import static dev.agentauth.server.store.StoreConformance.apiKey;
import static dev.agentauth.server.store.StoreConformance.at;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Workspaces and their API keys ({@link WorkspaceTx}): duplicate workspaces, key round trips,
 * lookup by id and hash, listing, revocation and its log, live-key counts and recorded uses.
 *
 * <p>Part of the store conformance suite: {@link StoreConformance} runs it on every store.
 */
interface WorkspaceConformance extends StoreUnderTest {
  @Test
  default void insertWorkspaceReturnsFalseOnDuplicateAndKeepsTheOriginal() {
    WorkspaceRow a = new WorkspaceRow(WS_A, "free", Instant.parse("2026-11-22T10:00:00.123Z"));
    assertThat(store().inTransaction((Tx tx) -> tx.insertWorkspace(a))).isTrue();
    assertThat(
            store().inTransaction((Tx tx) -> tx.insertWorkspace(new WorkspaceRow(WS_A, "pro", T0))))
        .isFalse();
    assertThat(
            store().inTransaction((Tx tx) -> tx.insertWorkspace(new WorkspaceRow(WS_B, "pro", T0))))
        .isTrue();
    read(
        tx -> {
          assertThat(tx.workspace(WS_A)).contains(a);
          assertThat(tx.workspace(WS_B)).contains(new WorkspaceRow(WS_B, "pro", T0));
          assertThat(tx.workspace("ws_missing")).isEmpty();
          return null;
        });
  }

  @Test
  default void insertWorkspaceDuplicateInTheSameTransactionReturnsFalse() {
    store()
        .inTransaction(
            tx -> {
              assertThat(tx.insertWorkspace(new WorkspaceRow(WS_A, "free", T0))).isTrue();
              assertThat(tx.insertWorkspace(new WorkspaceRow(WS_A, "pro", T0))).isFalse();
              // A transaction that saw a duplicate can still write and commit.
              tx.insertApiKey(apiKey("b".repeat(64), WS_A, T0));
              return null;
            });
    assertThat(read((Tx tx) -> tx.workspace(WS_A))).contains(new WorkspaceRow(WS_A, "free", T0));
    assertThat(read((Tx tx) -> tx.apiKey("b".repeat(64)))).isPresent();
  }

  @Test
  default void apiKeysKeepEveryFieldAndAreFoundByIdInTheirWorkspaceOnly() {
    ApiKeyRow approver =
        new ApiKeyRow(
            "c3".repeat(32),
            "key_01jdq4zk3m0000000000000a",
            WS_A,
            "approver",
            "pager duty",
            "mgr_7",
            "AbCd_-12",
            at(-60),
            at(3600),
            at(-30),
            null,
            List.of("security", "compliance"));
    write(
        tx -> {
          tx.insertApiKey(approver);
        });
    read(
        tx -> {
          assertThat(tx.apiKey(approver.keyHash())).contains(approver);
          assertThat(tx.apiKeyById(WS_A, approver.keyId())).contains(approver);
          assertThat(tx.apiKeyById(WS_B, approver.keyId())).isEmpty();
          assertThat(tx.apiKeyById(WS_A, "key_nothing")).isEmpty();
          return null;
        });
  }

  @Test
  default void apiKeysAreListedInKeyIdOrderPageByPageWithinTheirWorkspace() {
    List<ApiKeyRow> keys = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      keys.add(
          new ApiKeyRow(
              String.format("%064x", i + 1),
              "key_01jdq4zk3m000000000000" + (char) ('e' - i) + "0",
              WS_A,
              "agent",
              null,
              null,
              "prefix0" + i,
              at(i),
              null,
              null,
              null,
              null));
    }
    write(
        tx -> {
          keys.forEach(tx::insertApiKey);
          tx.insertApiKey(apiKey("ee".repeat(32), WS_B, T0));
        });
    List<ApiKeyRow> sorted =
        keys.stream().sorted(java.util.Comparator.comparing(ApiKeyRow::keyId)).toList();
    read(
        tx -> {
          Page<ApiKeyRow> first = tx.listApiKeys(WS_A, PageRequest.first(3));
          assertThat(first.items()).containsExactlyElementsOf(sorted.subList(0, 3));
          assertThat(first.hasMore()).isTrue();
          Page<ApiKeyRow> rest = tx.listApiKeys(WS_A, new PageRequest(sorted.get(2).keyId(), 3));
          assertThat(rest.items()).containsExactlyElementsOf(sorted.subList(3, 5));
          assertThat(rest.hasMore()).isFalse();
          return null;
        });
  }

  @Test
  default void aKeyIsRevokedOnceAndOnlyInItsWorkspace() {
    ApiKeyRow k = apiKey("d4".repeat(32), WS_A, T0);
    ApiKeyRow other = apiKey("d5".repeat(32), WS_A, T0);
    write(
        tx -> {
          tx.insertApiKey(k);
          tx.insertApiKey(other);
        });
    long before = read((Tx tx) -> tx.lastApiKeyRevocation());
    assertThat(read((Tx tx) -> tx.apiKeyRevocationsAfter(before, 10))).isEmpty();
    assertThat((boolean) store().inTransaction(tx -> tx.revokeApiKey(WS_B, k.keyId(), at(5))))
        .isFalse();
    assertThat((boolean) store().inTransaction(tx -> tx.revokeApiKey(WS_A, k.keyId(), at(5))))
        .isTrue();
    assertThat((boolean) store().inTransaction(tx -> tx.revokeApiKey(WS_A, k.keyId(), at(9))))
        .isFalse();
    read(
        tx -> {
          assertThat(tx.apiKey(k.keyHash())).contains(k.revokedAt(at(5)));
          assertThat(tx.apiKey(other.keyHash())).contains(other);
          return null;
        });
    // The log holds the one revocation, after what was there before, and nothing for a refusal.
    List<ApiKeyRow.Revocation> log = read((Tx tx) -> tx.apiKeyRevocationsAfter(before, 10));
    assertThat(log).extracting(ApiKeyRow.Revocation::keyHash).containsExactly(k.keyHash());
    assertThat(log.get(0).seq()).isGreaterThan(before);
    assertThat(read((Tx tx) -> tx.lastApiKeyRevocation())).isEqualTo(log.get(0).seq());
    assertThat(read((Tx tx) -> tx.apiKeyRevocationsAfter(log.get(0).seq(), 10))).isEmpty();
  }

  @Test
  default void theRevocationLogIsReadInOrderAfterAnEntryAndAtMostLimitAtATime() {
    List<ApiKeyRow> keys = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      keys.add(apiKey(String.format("%02x", 0x70 + i).repeat(32), WS_A, T0));
    }
    write(tx -> keys.forEach(tx::insertApiKey));
    long before = read((Tx tx) -> tx.lastApiKeyRevocation());
    for (ApiKeyRow k : keys) {
      store().inTransaction(tx -> tx.revokeApiKey(WS_A, k.keyId(), at(1)));
    }
    // A revocation rolled back leaves no entry.
    ApiKeyRow spared = apiKey("7f".repeat(32), WS_A, T0);
    write(tx -> tx.insertApiKey(spared));
    assertThatThrownBy(
            () ->
                store()
                    .inTransaction(
                        tx -> {
                          tx.revokeApiKey(WS_A, spared.keyId(), at(2));
                          throw new IllegalStateException("roll back");
                        }))
        .isInstanceOf(IllegalStateException.class);
    List<ApiKeyRow.Revocation> first = read((Tx tx) -> tx.apiKeyRevocationsAfter(before, 3));
    assertThat(first)
        .extracting(ApiKeyRow.Revocation::keyHash)
        .containsExactly(keys.get(0).keyHash(), keys.get(1).keyHash(), keys.get(2).keyHash());
    List<ApiKeyRow.Revocation> rest =
        read((Tx tx) -> tx.apiKeyRevocationsAfter(first.get(2).seq(), 3));
    assertThat(rest)
        .extracting(ApiKeyRow.Revocation::keyHash)
        .containsExactly(keys.get(3).keyHash(), keys.get(4).keyHash());
    assertThat(rest.get(0).seq()).isGreaterThan(first.get(2).seq());
    assertThat(rest.get(1).seq()).isGreaterThan(rest.get(0).seq());
    assertThat(read((Tx tx) -> tx.apiKeyRevocationsAfter(rest.get(1).seq(), 3))).isEmpty();
  }

  @Test
  default void liveKeysCountNeitherRevokedNorExpiredOnesNorOtherWorkspaces() {
    ApiKeyRow forever = apiKey("80".repeat(32), WS_A, T0);
    ApiKeyRow revoked = apiKey("81".repeat(32), WS_A, T0);
    ApiKeyRow other = apiKey("82".repeat(32), WS_B, T0);
    ApiKeyRow expiring =
        new ApiKeyRow(
            "83".repeat(32),
            "key_01jdq4zk3m00000000000expi",
            WS_A,
            "agent",
            null,
            null,
            null,
            T0,
            at(60),
            null,
            null,
            null);
    write(
        tx -> {
          for (ApiKeyRow k : List.of(forever, revoked, other, expiring)) {
            tx.insertApiKey(k);
          }
        });
    store().inTransaction(tx -> tx.revokeApiKey(WS_A, revoked.keyId(), at(1)));
    assertThat(read((Tx tx) -> tx.countLiveApiKeys(WS_A, at(59)))).isEqualTo(2);
    assertThat(read((Tx tx) -> tx.countLiveApiKeys(WS_A, at(60)))).isEqualTo(1);
    assertThat(read((Tx tx) -> tx.countLiveApiKeys(WS_B, at(60)))).isEqualTo(1);
    assertThat(read((Tx tx) -> tx.countLiveApiKeys("ws_none", at(0)))).isZero();
  }

  @Test
  default void aKeysUseIsRecordedAtMostOncePerIntervalAndFillsAnUnknownPrefix() {
    ApiKeyRow k = apiKey("e6".repeat(32), WS_A, T0);
    Duration minute = Duration.ofSeconds(60);
    write(tx -> tx.insertApiKey(k));
    write(
        tx ->
            tx.recordApiKeyUses(
                List.of(new ApiKeyRow.Use(k.keyHash(), at(10), "Zz012345")), minute));
    assertThat(read((Tx tx) -> tx.apiKey(k.keyHash())).orElseThrow())
        .isEqualTo(k.usedAt(at(10), "Zz012345"));
    // 59 s later: not written; 60 s later: written, the known prefix kept.
    write(
        tx ->
            tx.recordApiKeyUses(
                List.of(new ApiKeyRow.Use(k.keyHash(), at(69), "other000")), minute));
    assertThat(read((Tx tx) -> tx.apiKey(k.keyHash())).orElseThrow().lastUsedAt())
        .isEqualTo(at(10));
    write(
        tx ->
            tx.recordApiKeyUses(
                List.of(new ApiKeyRow.Use(k.keyHash(), at(70), "other000")), minute));
    ApiKeyRow used = read((Tx tx) -> tx.apiKey(k.keyHash())).orElseThrow();
    assertThat(used.lastUsedAt()).isEqualTo(at(70));
    assertThat(used.prefix()).isEqualTo("Zz012345");
  }

  @Test
  default void apiKeysAreFoundByHash() {
    ApiKeyRow k1 = apiKey("0f".repeat(32), WS_A, Instant.parse("2026-11-22T10:00:00.007Z"));
    ApiKeyRow k2 = apiKey("a1".repeat(32), WS_B, T0);
    write(
        tx -> {
          tx.insertApiKey(k1);
          tx.insertApiKey(k2);
        });
    read(
        tx -> {
          assertThat(tx.apiKey(k1.keyHash())).contains(k1);
          assertThat(tx.apiKey(k2.keyHash())).contains(k2);
          assertThat(tx.apiKey("ff".repeat(32))).isEmpty();
          return null;
        });
  }
}
