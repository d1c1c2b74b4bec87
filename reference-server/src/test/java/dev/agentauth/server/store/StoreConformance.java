package dev.agentauth.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.model.AuthorizationStatus;
import dev.agentauth.model.EscalationStatus;
import dev.agentauth.server.domain.AuthorizationRow;
import dev.agentauth.server.domain.EscalationRow;
import dev.agentauth.server.domain.GrantRow;
import dev.agentauth.server.domain.NonceRow;
import dev.agentauth.server.domain.ScopeRule;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link Store} must have, with {@link MemoryStore} as the reference: each
 * {@link Tx} operation against its documented semantics, exact round trips of every column,
 * workspace scoping, keyset pagination (also while rows are being written), transaction atomicity
 * and the locking that keeps counters and budgets within their limits under concurrency. Subclasses
 * supply a fresh, empty store per test.
 */
public abstract class StoreConformance {
  protected static final String WS_A = "ws_a";
  protected static final String WS_B = "ws_b";
  protected static final Instant T0 = Instant.parse("2026-11-22T10:00:00.000Z");
  protected static final LocalDate DAY = LocalDate.parse("2026-11-22");
  protected static final ObjectMapper JSON = new ObjectMapper();

  /** The store under test; closed after each test. Subclasses may replace it (e.g. on reopen). */
  protected Store store;

  /** A fresh, empty store. */
  protected abstract Store newStore();

  /** Runs after the test's store was closed (e.g. to drop a database schema). */
  protected void afterStoreClosed() {}

  @BeforeEach
  void openStore() {
    store = newStore();
  }

  @AfterEach
  void closeStore() {
    try {
      if (store != null) {
        store.close();
      }
    } finally {
      afterStoreClosed();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Helpers and fixtures.

  /** A ULID-like 26-character id whose order follows {@code n}. */
  protected static String ulid(long n) {
    return "01JDQ4ZK3M" + String.format("%016d", n);
  }

  protected static String authId(long n) {
    return "auth_" + ulid(n);
  }

  protected static Instant at(long seconds) {
    return T0.plusSeconds(seconds);
  }

  protected final void write(Consumer<Tx> work) {
    write(store, work);
  }

  protected static void write(Store s, Consumer<Tx> work) {
    s.inTransaction(
        tx -> {
          work.accept(tx);
          return null;
        });
  }

  protected final <T> T read(Store.Work<T> work) {
    return store.read(work);
  }

  protected static Map<String, String> targets(String... keysAndValues) {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      m.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    return m;
  }

  protected static ObjectNode richMetadata() {
    ObjectNode md = JSON.createObjectNode();
    md.put("team", "growth");
    md.put("seats", 42);
    md.put("ratio", 0.5);
    md.put("big", 9_007_199_254_740_993L);
    md.putNull("none");
    md.put("flag", true);
    md.put("text", "h\u00e9llo \u2603 \"quoted\" \\ back\nslash");
    ObjectNode nested = md.putObject("nested");
    nested.putArray("list").add(1).add("two").addNull().add(false);
    nested.putObject("empty");
    return md;
  }

  protected static List<ScopeRule> richScopes() {
    return List.of(
        new ScopeRule("calendar.read", 20L, "calendar:*", List.of("user", "scheduler")),
        new ScopeRule("email.send", null, null, null),
        new ScopeRule("files.write", null, "files:/home/**", List.of()),
        new ScopeRule("payments.charge", 9_007_199_254_740_993L, null, null));
  }

  /** An authorization using every column, with escalation targets in a non-sorted order. */
  protected static AuthorizationRow fullAuthorization(String ws, String id) {
    return new AuthorizationRow(
        ws,
        id,
        "user_7f3a",
        "agent_scheduler",
        "bundle_assistant",
        richScopes(),
        List.of("email.send", "payments.charge"),
        List.of("payments.charge", "files.write"),
        targets(
            "payments.charge", "finance-team",
            "email.send", "ops@example.com",
            "calendar.write", "manager"),
        Instant.parse("2026-12-22T10:00:00.123Z"),
        5_000_000_000_000L,
        1_250_007L,
        Instant.parse("2026-11-22T09:59:59.456Z"),
        null,
        richMetadata());
  }

  /** An authorization with every optional column null or empty. */
  protected static AuthorizationRow minimalAuthorization(String ws, String id) {
    return new AuthorizationRow(
        ws,
        id,
        "user_1",
        "agent_1",
        null,
        List.of(new ScopeRule("calendar.read", null, null, null)),
        List.of(),
        List.of(),
        Map.of(),
        Instant.parse("2026-11-23T10:00:00.001Z"),
        null,
        0L,
        Instant.parse("2026-11-22T10:00:00.999Z"),
        null,
        null);
  }

  protected static AuthorizationRow auth(
      String ws, String id, String user, String agent, Instant expiresAt) {
    return new AuthorizationRow(
        ws,
        id,
        user,
        agent,
        null,
        List.of(new ScopeRule("calendar.read", 10L, null, null)),
        List.of(),
        List.of(),
        Map.of(),
        expiresAt,
        1_000L,
        0L,
        T0.minus(Duration.ofDays(1)),
        null,
        null);
  }

  /** An authorization in {@code WS_A} of {@code payments.charge} with a daily limit and budget. */
  protected static AuthorizationRow chargeAuthorization(String id, long maxPerDay, long budget) {
    return new AuthorizationRow(
        WS_A,
        id,
        "user_1",
        "agent_1",
        null,
        List.of(new ScopeRule("payments.charge", maxPerDay, null, null)),
        List.of(),
        List.of(),
        Map.of(),
        at(86_400),
        budget,
        0L,
        T0,
        null,
        null);
  }

  protected static String payloadJson(String receiptId, String decision) {
    // Canonical JSON (sorted keys, no whitespace) that a JSON column type would reformat.
    return "{\"decision\":\""
        + decision
        + "\",\"receipt_id\":\""
        + receiptId
        + "\",\"reason\":\"caf\u00e9 \\\"ok\\\"\",\"scope\":\"calendar.read\",\"v\":1.50}";
  }

  protected static ReceiptRow receipt(
      String ws,
      String id,
      String authorizationId,
      String userId,
      String resource,
      String sessionId,
      String scope,
      String event,
      String decision,
      Instant issuedAt) {
    return new ReceiptRow(
        ws,
        id,
        authorizationId,
        userId,
        resource,
        sessionId,
        scope,
        event,
        decision,
        issuedAt,
        payloadJson(id, decision),
        null);
  }

  protected static ReceiptRow pendingReceipt(String ws, String id, Instant issuedAt) {
    return receipt(
        ws,
        id,
        authId(1),
        "user_1",
        "doc:1",
        "sess_1",
        "calendar.read",
        "check",
        "allow",
        issuedAt);
  }

  protected static ReceiptRow signed(ReceiptRow r, String signedJson) {
    return r.withSignedJson(signedJson);
  }

  /** {@code r} signed, with {@code sig} as the signature value. */
  protected static ReceiptRow signedWith(ReceiptRow r, String sig) {
    return r.withSignedJson(signedJson(r, sig));
  }

  protected static String signedJson(ReceiptRow r, String sig) {
    return r.payloadJson().substring(0, r.payloadJson().length() - 1)
        + ",\"signature\":{\"alg\":\"Ed25519\",\"key_id\":\"ws_a/01jdq4\",\"value\":\""
        + sig
        + "\"}}";
  }

  protected static NonceRow nonce(
      String ws,
      String nonce,
      String authorizationId,
      String scope,
      String resource,
      Instant createdAt,
      Instant expiresAt) {
    return new NonceRow(
        ws, nonce, authorizationId, scope, resource, createdAt, expiresAt, null, null);
  }

  protected static EscalationRow escalation(
      String ws,
      String id,
      String authorizationId,
      String scope,
      String resource,
      String status,
      Instant createdAt,
      Instant expiresAt) {
    return new EscalationRow(
        ws,
        id,
        authorizationId,
        scope,
        resource,
        EscalationRow.parseStatus(status),
        "finance-team",
        createdAt,
        expiresAt,
        null,
        null,
        null,
        null,
        null);
  }

  protected static BundleRow bundle(String ws, String id, String agent, Instant createdAt) {
    return new BundleRow(
        ws,
        id,
        agent,
        richScopes(),
        List.of("email.send"),
        List.of("payments.charge"),
        targets("payments.charge", "finance-team", "email.send", "ops"),
        30L,
        "Assistant bundle \u2014 calendar & mail",
        createdAt,
        createdAt,
        null);
  }

  protected static IdempotencyRow idem(String apiKeyHash, String key, byte[] body, Instant at) {
    return new IdempotencyRow(
        apiKeyHash,
        key,
        "sha256:" + key.hashCode(),
        201,
        "application/json; charset=utf-8",
        body,
        at);
  }

  protected static byte[] seedBytes(int salt) {
    byte[] seed = new byte[32];
    for (int i = 0; i < seed.length; i++) {
      seed[i] = (byte) (i * 37 + salt);
    }
    seed[0] = 0;
    seed[31] = (byte) 0xff;
    seed[15] = (byte) 0x80;
    return seed;
  }

  protected static SigningKeyRow signingKey(String ws, String keyId, int salt, Instant from) {
    byte[] pub = new byte[32];
    for (int i = 0; i < pub.length; i++) {
      pub[i] = (byte) (255 - i * 7 - salt);
    }
    return new SigningKeyRow(ws, keyId, seedBytes(salt), pub, from, null);
  }

  protected static void assertSigningKey(SigningKeyRow actual, SigningKeyRow expected) {
    assertThat(actual.workspaceId()).isEqualTo(expected.workspaceId());
    assertThat(actual.keyId()).isEqualTo(expected.keyId());
    assertThat(actual.privateSeed()).containsExactly(expected.privateSeed());
    assertThat(actual.publicKey()).containsExactly(expected.publicKey());
    assertThat(actual.activeFrom()).isEqualTo(expected.activeFrom());
    assertThat(actual.activeUntil()).isEqualTo(expected.activeUntil());
  }

  protected static void assertIdempotency(IdempotencyRow actual, IdempotencyRow expected) {
    assertThat(actual.apiKeyHash()).isEqualTo(expected.apiKeyHash());
    assertThat(actual.idempotencyKey()).isEqualTo(expected.idempotencyKey());
    assertThat(actual.requestHash()).isEqualTo(expected.requestHash());
    assertThat(actual.status()).isEqualTo(expected.status());
    assertThat(actual.contentType()).isEqualTo(expected.contentType());
    assertThat(actual.body()).containsExactly(expected.body());
    assertThat(actual.createdAt()).isEqualTo(expected.createdAt());
  }

  /** Asserts equality and that the escalation target maps keep their insertion order. */
  protected static void assertAuthorization(AuthorizationRow actual, AuthorizationRow expected) {
    assertThat(actual).isEqualTo(expected);
    assertThat(List.copyOf(actual.escalationTargets().entrySet()))
        .containsExactlyElementsOf(List.copyOf(expected.escalationTargets().entrySet()));
  }

  protected static void assertBundle(BundleRow actual, BundleRow expected) {
    assertThat(actual).isEqualTo(expected);
    assertThat(List.copyOf(actual.escalationTargets().entrySet()))
        .containsExactlyElementsOf(List.copyOf(expected.escalationTargets().entrySet()));
  }

  private static <T> List<String> ids(Page<T> page, java.util.function.Function<T, String> id) {
    return page.items().stream().map(id).toList();
  }

  // ---------------------------------------------------------------------------------------------
  // One row in every table: used for atomicity here and for durability by the SQL stores.

  protected static final byte[] EVERYTHING_BODY = {0, 1, (byte) 0x80, (byte) 0xff, '{', '}', 10};

  /** Writes one committed row of every kind (the state {@link #assertOneOfEverything} checks). */
  protected static void writeOneOfEverything(Store s) {
    write(
        s,
        tx -> {
          assertThat(tx.insertWorkspace(new WorkspaceRow(WS_A, "pro", at(-3600)))).isTrue();
          tx.insertApiKey(apiKey("a".repeat(64), WS_A, at(-3500)));
          tx.insertSigningKey(signingKey(WS_A, "ws_a/01jdq4zk3m0001", 3, at(-3400)));
          tx.insertAuthorization(fullAuthorization(WS_A, authId(1)));
          tx.insertAuthorization(minimalAuthorization(WS_A, authId(2)));
          tx.addAllowCount(WS_A, authId(1), "calendar.read", DAY, 3);
          tx.insertNonce(
              nonce(WS_A, "cn_everything", authId(1), "email.send", "doc:1", at(0), at(300)));
          tx.insertGrant(
              new GrantRow(
                  WS_A,
                  "cfa_" + ulid(1),
                  authId(1),
                  "email.send",
                  "doc:2",
                  "cn_old",
                  at(-10),
                  at(600),
                  new GrantRow.ApprovedBy("key_01abc", "tool_server", "mcp_elicitation")));
          tx.insertEscalation(
              escalation(
                  WS_A,
                  "esc_" + ulid(1),
                  authId(1),
                  "payments.charge",
                  null,
                  "pending",
                  at(0),
                  at(3600)));
          tx.upsertBundle(bundle(WS_A, "assistant", "agent_scheduler", at(-100)));
          tx.insertTombstone(new TombstoneRow(WS_A, "doc:gone", "legal hold", at(-50)));
          tx.insertReceipt(pendingReceipt(WS_A, ulid(1), at(0)));
          tx.insertIdempotency(idem("a".repeat(64), "idem-1", EVERYTHING_BODY, at(-5)));
        });
  }

  /** Asserts the state {@link #writeOneOfEverything} committed, read through {@code s}. */
  protected static void assertOneOfEverything(Store s) {
    s.read(
        tx -> {
          assertThat(tx.workspace(WS_A)).contains(new WorkspaceRow(WS_A, "pro", at(-3600)));
          assertThat(tx.apiKey("a".repeat(64))).contains(apiKey("a".repeat(64), WS_A, at(-3500)));
          List<SigningKeyRow> keys = tx.signingKeys(WS_A);
          assertThat(keys).hasSize(1);
          assertSigningKey(keys.get(0), signingKey(WS_A, "ws_a/01jdq4zk3m0001", 3, at(-3400)));
          assertAuthorization(
              tx.authorization(WS_A, authId(1)).orElseThrow(), fullAuthorization(WS_A, authId(1)));
          assertAuthorization(
              tx.authorization(WS_A, authId(2)).orElseThrow(),
              minimalAuthorization(WS_A, authId(2)));
          assertThat(tx.allowCount(WS_A, authId(1), "calendar.read", DAY)).isEqualTo(3);
          assertThat(tx.nonce(WS_A, "cn_everything"))
              .contains(
                  nonce(WS_A, "cn_everything", authId(1), "email.send", "doc:1", at(0), at(300)));
          assertThat(tx.activeGrant(WS_A, authId(1), "email.send", "doc:2", at(1)))
              .contains(
                  new GrantRow(
                      WS_A,
                      "cfa_" + ulid(1),
                      authId(1),
                      "email.send",
                      "doc:2",
                      "cn_old",
                      at(-10),
                      at(600),
                      new GrantRow.ApprovedBy("key_01abc", "tool_server", "mcp_elicitation")));
          assertThat(tx.escalation(WS_A, "esc_" + ulid(1)))
              .contains(
                  escalation(
                      WS_A,
                      "esc_" + ulid(1),
                      authId(1),
                      "payments.charge",
                      null,
                      "pending",
                      at(0),
                      at(3600)));
          assertBundle(
              tx.bundle(WS_A, "assistant").orElseThrow(),
              bundle(WS_A, "assistant", "agent_scheduler", at(-100)));
          assertThat(tx.tombstone(WS_A, "doc:gone"))
              .contains(new TombstoneRow(WS_A, "doc:gone", "legal hold", at(-50)));
          assertThat(tx.receipt(WS_A, ulid(1))).contains(pendingReceipt(WS_A, ulid(1), at(0)));
          assertIdempotency(
              tx.idempotency("a".repeat(64), "idem-1").orElseThrow(),
              idem("a".repeat(64), "idem-1", EVERYTHING_BODY, at(-5)));
          return null;
        });
  }

  // ---------------------------------------------------------------------------------------------
  // Store basics.

  @Test
  void openStoreIsReachableAndDescribesItself() {
    assertThat(store.isReachable()).isTrue();
    assertThat(store.describe()).isNotBlank();
  }

  @Test
  void inTransactionAndReadReturnTheWorkResult() {
    assertThat(store.inTransaction((Tx tx) -> "value")).isEqualTo("value");
    assertThat(store.read((Tx tx) -> 42)).isEqualTo(42);
    assertThat(store.inTransaction((Tx tx) -> (Object) null)).isNull();
  }

  @Test
  void commitsAreVisibleToLaterTransactionsAndReads() {
    write(tx -> tx.insertWorkspace(new WorkspaceRow(WS_A, "free", T0)));
    assertThat(store.inTransaction((Tx tx) -> tx.workspace(WS_A)))
        .contains(new WorkspaceRow(WS_A, "free", T0));
    assertThat(read((Tx tx) -> tx.workspace(WS_A))).contains(new WorkspaceRow(WS_A, "free", T0));
    write(tx -> tx.addAllowCount(WS_A, authId(1), "calendar.read", DAY, 2));
    assertThat(read((Tx tx) -> tx.allowCount(WS_A, authId(1), "calendar.read", DAY))).isEqualTo(2);
  }

  @Test
  void writesAreVisibleLaterInTheSameTransaction() {
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

  // ---------------------------------------------------------------------------------------------
  // Workspaces, API keys, signing keys.

  @Test
  void insertWorkspaceReturnsFalseOnDuplicateAndKeepsTheOriginal() {
    WorkspaceRow a = new WorkspaceRow(WS_A, "free", Instant.parse("2026-11-22T10:00:00.123Z"));
    assertThat(store.inTransaction((Tx tx) -> tx.insertWorkspace(a))).isTrue();
    assertThat(
            store.inTransaction((Tx tx) -> tx.insertWorkspace(new WorkspaceRow(WS_A, "pro", T0))))
        .isFalse();
    assertThat(
            store.inTransaction((Tx tx) -> tx.insertWorkspace(new WorkspaceRow(WS_B, "pro", T0))))
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
  void insertWorkspaceDuplicateInTheSameTransactionReturnsFalse() {
    store.inTransaction(
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

  /** A {@code full} key row whose id derives from its hash. */
  protected static ApiKeyRow apiKey(String hash, String workspaceId, Instant createdAt) {
    return ApiKeyRow.full(hash, "key_" + hash.substring(0, 26), workspaceId, null, createdAt);
  }

  @Test
  void apiKeysKeepEveryFieldAndAreFoundByIdInTheirWorkspaceOnly() {
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
  void apiKeysAreListedInKeyIdOrderPageByPageWithinTheirWorkspace() {
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
  void aKeyIsRevokedOnceAndOnlyInItsWorkspace() {
    ApiKeyRow k = apiKey("d4".repeat(32), WS_A, T0);
    ApiKeyRow other = apiKey("d5".repeat(32), WS_A, T0);
    write(
        tx -> {
          tx.insertApiKey(k);
          tx.insertApiKey(other);
        });
    long before = read((Tx tx) -> tx.lastApiKeyRevocation());
    assertThat(read((Tx tx) -> tx.apiKeyRevocationsAfter(before, 10))).isEmpty();
    assertThat((boolean) store.inTransaction(tx -> tx.revokeApiKey(WS_B, k.keyId(), at(5))))
        .isFalse();
    assertThat((boolean) store.inTransaction(tx -> tx.revokeApiKey(WS_A, k.keyId(), at(5))))
        .isTrue();
    assertThat((boolean) store.inTransaction(tx -> tx.revokeApiKey(WS_A, k.keyId(), at(9))))
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
  void theRevocationLogIsReadInOrderAfterAnEntryAndAtMostLimitAtATime() {
    List<ApiKeyRow> keys = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      keys.add(apiKey(String.format("%02x", 0x70 + i).repeat(32), WS_A, T0));
    }
    write(tx -> keys.forEach(tx::insertApiKey));
    long before = read((Tx tx) -> tx.lastApiKeyRevocation());
    for (ApiKeyRow k : keys) {
      store.inTransaction(tx -> tx.revokeApiKey(WS_A, k.keyId(), at(1)));
    }
    // A revocation rolled back leaves no entry.
    ApiKeyRow spared = apiKey("7f".repeat(32), WS_A, T0);
    write(tx -> tx.insertApiKey(spared));
    assertThatThrownBy(
            () ->
                store.inTransaction(
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
  void liveKeysCountNeitherRevokedNorExpiredOnesNorOtherWorkspaces() {
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
    store.inTransaction(tx -> tx.revokeApiKey(WS_A, revoked.keyId(), at(1)));
    assertThat(read((Tx tx) -> tx.countLiveApiKeys(WS_A, at(59)))).isEqualTo(2);
    assertThat(read((Tx tx) -> tx.countLiveApiKeys(WS_A, at(60)))).isEqualTo(1);
    assertThat(read((Tx tx) -> tx.countLiveApiKeys(WS_B, at(60)))).isEqualTo(1);
    assertThat(read((Tx tx) -> tx.countLiveApiKeys("ws_none", at(0)))).isZero();
  }

  @Test
  void aKeysUseIsRecordedAtMostOncePerIntervalAndFillsAnUnknownPrefix() {
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
  void apiKeysAreFoundByHash() {
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

  @Test
  void signingKeysAreListedOldestFirstPerWorkspace() {
    SigningKeyRow k1 = signingKey(WS_A, "ws_a/01jdq4zk3m0001", 1, at(-86_400 * 2));
    SigningKeyRow k2 = signingKey(WS_A, "ws_a/01jdq4zk3m0002", 2, at(-86_400));
    SigningKeyRow k3 = signingKey(WS_A, "ws_a/01jdq4zk3m0003", 3, at(0));
    SigningKeyRow b1 = signingKey(WS_B, "ws_b/01jdq4zk3m0001", 4, at(-10));
    write(tx -> tx.insertSigningKey(k1));
    write(
        tx -> {
          tx.insertSigningKey(b1);
          tx.insertSigningKey(k2);
        });
    write(tx -> tx.insertSigningKey(k3));
    read(
        tx -> {
          List<SigningKeyRow> a = tx.signingKeys(WS_A);
          assertThat(a)
              .extracting(SigningKeyRow::keyId)
              .containsExactly(k1.keyId(), k2.keyId(), k3.keyId());
          assertSigningKey(a.get(0), k1);
          assertSigningKey(a.get(1), k2);
          assertSigningKey(a.get(2), k3);
          List<SigningKeyRow> b = tx.signingKeys(WS_B);
          assertThat(b).hasSize(1);
          assertSigningKey(b.get(0), b1);
          assertThat(tx.signingKeys("ws_none")).isEmpty();
          return null;
        });
  }

  @Test
  void signingKeySeedRoundTripsByteForByte() {
    byte[] seed = new byte[32];
    for (int i = 0; i < 32; i++) {
      seed[i] = (byte) (0xff - i * 8);
    }
    seed[5] = 0;
    seed[6] = 0;
    SigningKeyRow k =
        new SigningKeyRow(
            WS_A,
            "ws_a/01jdq4zk3m0009",
            seed.clone(),
            seedBytes(77),
            Instant.parse("2026-11-22T10:00:00.321Z"),
            Instant.parse("2027-11-22T10:00:00.654Z"));
    write(tx -> tx.insertSigningKey(k));
    SigningKeyRow back = read(tx -> tx.signingKeys(WS_A)).get(0);
    assertThat(back.privateSeed()).containsExactly(seed);
    assertSigningKey(back, k);
  }

  @Test
  void updateSigningKeyRetiresItAndKeepsTheSeed() {
    SigningKeyRow k1 = signingKey(WS_A, "ws_a/01jdq4zk3m0001", 1, at(-86_400));
    SigningKeyRow k2 = signingKey(WS_A, "ws_a/01jdq4zk3m0002", 2, at(0));
    write(
        tx -> {
          tx.insertSigningKey(k1);
          tx.insertSigningKey(k2);
        });
    SigningKeyRow retired = k1.retiredAt(Instant.parse("2026-11-22T10:00:00.500Z"));
    write(tx -> tx.updateSigningKey(retired));
    List<SigningKeyRow> keys = read(tx -> tx.signingKeys(WS_A));
    assertThat(keys).hasSize(2);
    assertSigningKey(keys.get(0), retired);
    assertSigningKey(keys.get(1), k2);
    assertThat(keys.get(0).validAt(at(-1))).isTrue();
    assertThat(keys.get(0).validAt(at(1))).isFalse();
  }

  // ---------------------------------------------------------------------------------------------
  // Authorizations.

  @Test
  void authorizationRoundTripsEveryColumnExactly() {
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
  void emptyMetadataObjectStaysAnEmptyObject() {
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
  void authorizationsOfAnotherWorkspaceAreInvisible() {
    write(
        tx -> {
          tx.insertAuthorization(fullAuthorization(WS_A, authId(1)));
          tx.insertAuthorization(auth(WS_B, authId(2), "user_7f3a", "agent_scheduler", at(60)));
        });
    store.inTransaction(
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
  void authorizationForUpdateReturnsTheRow() {
    AuthorizationRow full = fullAuthorization(WS_A, authId(1));
    write(tx -> tx.insertAuthorization(full));
    store.inTransaction(
        tx -> {
          assertAuthorization(tx.authorizationForUpdate(WS_A, authId(1)).orElseThrow(), full);
          assertThat(tx.authorizationForUpdate(WS_A, authId(9))).isEmpty();
          return null;
        });
  }

  @Test
  void updateAuthorizationChangesBudgetSpentAndRevokedAt() {
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

  /** Rows for the listing tests; {@code now} is {@link #T0}. */
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
  void listAuthorizationsFiltersByUserAgentAndStatusAtNow() {
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
  void listAuthorizationsPaginatesWithAfterIdLimitAndHasMore() {
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

  // ---------------------------------------------------------------------------------------------
  // Pagination stability while rows are written between pages.

  /** A keyset-paginated table for {@link #assertStablePagination}. */
  private interface PagedTable {
    String id(long n);

    void insert(Tx tx, long n);

    Page<String> page(Tx tx, String afterId, int limit);
  }

  /**
   * Pages through a table with limit 3 while other transactions insert rows before and after the
   * cursor: every row after the cursor at the time it was inserted appears exactly once, in order;
   * rows inserted before the cursor never appear; nothing is skipped or repeated.
   */
  private void assertStablePagination(PagedTable t) {
    write(
        tx -> {
          for (long n = 10; n <= 100; n += 10) {
            t.insert(tx, n);
          }
        });
    List<String> seen = new ArrayList<>();
    Page<String> p1 = read(tx -> t.page(tx, null, 3));
    assertThat(p1.items()).containsExactly(t.id(10), t.id(20), t.id(30));
    assertThat(p1.hasMore()).isTrue();
    seen.addAll(p1.items());
    write(
        tx -> {
          t.insert(tx, 5); // before the cursor: never seen
          t.insert(tx, 25); // before the cursor: never seen
          t.insert(tx, 35); // right after the cursor
          t.insert(tx, 200); // at the end
        });
    Page<String> p2 = read(tx -> t.page(tx, t.id(30), 3));
    assertThat(p2.items()).containsExactly(t.id(35), t.id(40), t.id(50));
    seen.addAll(p2.items());
    write(
        tx -> {
          t.insert(tx, 45);
          t.insert(tx, 55);
          t.insert(tx, 51);
        });
    String cursor = t.id(50);
    Page<String> p;
    int pages = 0;
    do {
      String after = cursor;
      p = read(tx -> t.page(tx, after, 3));
      seen.addAll(p.items());
      if (!p.items().isEmpty()) {
        cursor = p.items().get(p.items().size() - 1);
      }
      long extra = 300 + pages;
      write(tx -> t.insert(tx, extra)); // always after the cursor: must be seen
      pages++;
      assertThat(pages).as("pagination must terminate").isLessThan(50);
    } while (p.hasMore());
    // The last page said no more rows, yet the last insert happened after it was read.
    List<String> expected = new ArrayList<>();
    for (long n : new long[] {10, 20, 30, 35, 40, 50, 51, 55, 60, 70, 80, 90, 100, 200}) {
      expected.add(t.id(n));
    }
    for (int i = 0; i < pages - 1; i++) {
      expected.add(t.id(300 + i));
    }
    assertThat(seen).doesNotHaveDuplicates().containsExactlyElementsOf(expected);
    // The row inserted after the final page is found by a page starting at the last cursor.
    String last = cursor;
    assertThat(read((Tx tx) -> t.page(tx, last, 3)).items()).containsExactly(t.id(300 + pages - 1));
  }

  @Test
  void authorizationPaginationIsStableWhileWriting() {
    assertStablePagination(
        new PagedTable() {
          @Override
          public String id(long n) {
            return authId(n);
          }

          @Override
          public void insert(Tx tx, long n) {
            tx.insertAuthorization(auth(WS_A, id(n), "user_1", "agent_1", at(3600)));
          }

          @Override
          public Page<String> page(Tx tx, String afterId, int limit) {
            Page<AuthorizationRow> p =
                tx.listAuthorizations(
                    new AuthorizationFilter(
                        WS_A, "user_1", null, AuthorizationStatus.Known.ACTIVE, T0),
                    new PageRequest(afterId, limit));
            return new Page<>(ids(p, AuthorizationRow::authorizationId), p.hasMore());
          }
        });
  }

  @Test
  void receiptPaginationIsStableWhileWriting() {
    assertStablePagination(
        new PagedTable() {
          @Override
          public String id(long n) {
            return ulid(n);
          }

          @Override
          public void insert(Tx tx, long n) {
            tx.insertReceipt(pendingReceipt(WS_A, id(n), at(n)));
          }

          @Override
          public Page<String> page(Tx tx, String afterId, int limit) {
            Page<ReceiptRow> p =
                tx.listReceipts(
                    WS_A,
                    new ReceiptFilter(null, null, null, null, null, "check", null, null, null),
                    new PageRequest(afterId, limit));
            return new Page<>(ids(p, ReceiptRow::receiptId), p.hasMore());
          }
        });
  }

  @Test
  void escalationPaginationIsStableWhileWriting() {
    assertStablePagination(
        new PagedTable() {
          @Override
          public String id(long n) {
            return "esc_" + ulid(n);
          }

          @Override
          public void insert(Tx tx, long n) {
            tx.insertEscalation(
                escalation(
                    WS_A, id(n), authId(1), "payments.charge", "doc:" + n, "pending", T0, at(600)));
          }

          @Override
          public Page<String> page(Tx tx, String afterId, int limit) {
            Page<EscalationRow> p =
                tx.listEscalations(
                    new EscalationFilter(WS_A, EscalationStatus.Known.PENDING, T0),
                    new PageRequest(afterId, limit));
            return new Page<>(ids(p, EscalationRow::escalationId), p.hasMore());
          }
        });
  }

  @Test
  void bundlePaginationIsStableWhileWriting() {
    assertStablePagination(
        new PagedTable() {
          @Override
          public String id(long n) {
            return String.format("bundle-%06d", n);
          }

          @Override
          public void insert(Tx tx, long n) {
            tx.upsertBundle(bundle(WS_A, id(n), "agent_1", T0));
          }

          @Override
          public Page<String> page(Tx tx, String afterId, int limit) {
            Page<BundleRow> p = tx.listActiveBundles(WS_A, new PageRequest(afterId, limit));
            return new Page<>(ids(p, BundleRow::bundleId), p.hasMore());
          }
        });
  }

  @Test
  void tombstonePaginationIsStableWhileWriting() {
    assertStablePagination(
        new PagedTable() {
          @Override
          public String id(long n) {
            return String.format("doc:%06d", n);
          }

          @Override
          public void insert(Tx tx, long n) {
            tx.insertTombstone(new TombstoneRow(WS_A, id(n), null, T0));
          }

          @Override
          public Page<String> page(Tx tx, String afterId, int limit) {
            Page<TombstoneRow> p = tx.listTombstones(WS_A, new PageRequest(afterId, limit));
            return new Page<>(ids(p, TombstoneRow::resource), p.hasMore());
          }
        });
  }

  // ---------------------------------------------------------------------------------------------
  // Allow counters.

  @Test
  void allowCountStartsAtZeroAndAccumulates() {
    assertThat(read((Tx tx) -> tx.allowCount(WS_A, authId(1), "calendar.read", DAY))).isZero();
    write(tx -> tx.addAllowCount(WS_A, authId(1), "calendar.read", DAY, 1));
    write(tx -> tx.addAllowCount(WS_A, authId(1), "calendar.read", DAY, 4));
    assertThat(read((Tx tx) -> tx.allowCount(WS_A, authId(1), "calendar.read", DAY))).isEqualTo(5);
    write(tx -> tx.addAllowCount(WS_A, authId(1), "calendar.read", DAY, 3_000_000_000L));
    assertThat(read((Tx tx) -> tx.allowCount(WS_A, authId(1), "calendar.read", DAY)))
        .isEqualTo(3_000_000_005L);
  }

  @Test
  void allowCountsOfOtherDaysScopesAuthorizationsAndWorkspacesAreIndependent() {
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

  // ---------------------------------------------------------------------------------------------
  // Nonces and grants.

  @Test
  void nonceRoundTripsAndUpdatesConsumedAndApproved() {
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
  void openNonceReturnsTheNewestOpenOneForTheTarget() {
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
  void openNonceIgnoresConsumedAndExpiredNonces() {
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
  void activeGrantFindsAnActiveWindowForTheExactTarget() {
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
  void activeGrantPicksAGrantActiveAtNowAmongSeveral() {
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

  // ---------------------------------------------------------------------------------------------
  // Escalations.

  @Test
  void revokingAnAuthorizationEndsOnlyItsOpenEscalationsWhenRead() {
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
                store.inTransaction(
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
  void escalationRoundTripsAndUpdates() {
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
  void latestEscalationIsTheMostRecentlyInsertedForTheTarget() {
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
  void listEscalationsFiltersByEffectiveStatusAndPaginates() {
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

  // ---------------------------------------------------------------------------------------------
  // Bundles and tombstones.

  @Test
  void upsertBundleInsertsThenReplacesTheWholeRow() {
    BundleRow b =
        bundle(WS_A, "assistant", "agent_scheduler", Instant.parse("2026-11-22T10:00:00.070Z"));
    write(tx -> tx.upsertBundle(b));
    assertBundle(read(tx -> tx.bundle(WS_A, "assistant")).orElseThrow(), b);
    BundleRow replaced =
        new BundleRow(
            WS_A,
            "assistant",
            "agent_mailer",
            List.of(new ScopeRule("email.send", 3L, "mailto:*@example.com", null)),
            List.of(),
            List.of(),
            targets("z.last", "zed", "a.first", "ay"),
            null,
            null,
            b.createdAt(),
            Instant.parse("2026-11-22T11:00:00.080Z"),
            null);
    write(tx -> tx.upsertBundle(replaced));
    read(
        tx -> {
          assertBundle(tx.bundle(WS_A, "assistant").orElseThrow(), replaced);
          assertThat(tx.bundle(WS_B, "assistant")).isEmpty();
          assertThat(tx.bundle(WS_A, "other")).isEmpty();
          return null;
        });
  }

  @Test
  void softDeletedBundlesAreKeptButNotListedAndCanBeRecreated() {
    BundleRow b = bundle(WS_A, "assistant", "agent_scheduler", T0);
    write(tx -> tx.upsertBundle(b));
    BundleRow deleted = b.deleted(at(60));
    write(tx -> tx.upsertBundle(deleted));
    read(
        tx -> {
          BundleRow back = tx.bundle(WS_A, "assistant").orElseThrow();
          assertBundle(back, deleted);
          assertThat(back.isActive()).isFalse();
          assertThat(tx.listActiveBundles(WS_A, new PageRequest(null, 10)).items()).isEmpty();
          assertThat(tx.listActiveBundles(WS_A, new PageRequest(null, 10)).hasMore()).isFalse();
          return null;
        });
    BundleRow recreated = bundle(WS_A, "assistant", "agent_new", at(120));
    write(tx -> tx.upsertBundle(recreated));
    read(
        tx -> {
          assertBundle(tx.bundle(WS_A, "assistant").orElseThrow(), recreated);
          assertThat(tx.listActiveBundles(WS_A, new PageRequest(null, 10)).items())
              .containsExactly(recreated);
          return null;
        });
  }

  @Test
  void listActiveBundlesPaginatesAndSkipsDeletedOnes() {
    write(
        tx -> {
          for (int i = 1; i <= 6; i++) {
            tx.upsertBundle(bundle(WS_A, "b" + i, "agent_1", T0));
          }
          tx.upsertBundle(bundle(WS_B, "b1", "agent_other", T0));
        });
    write(
        tx -> {
          tx.upsertBundle(bundle(WS_A, "b2", "agent_1", T0).deleted(at(1)));
          tx.upsertBundle(bundle(WS_A, "b5", "agent_1", T0).deleted(at(1)));
        });
    read(
        tx -> {
          Page<BundleRow> p1 = tx.listActiveBundles(WS_A, new PageRequest(null, 2));
          assertThat(ids(p1, BundleRow::bundleId)).containsExactly("b1", "b3");
          assertThat(p1.hasMore()).isTrue();
          Page<BundleRow> p2 = tx.listActiveBundles(WS_A, new PageRequest("b3", 2));
          assertThat(ids(p2, BundleRow::bundleId)).containsExactly("b4", "b6");
          assertThat(p2.hasMore()).isFalse();
          Page<BundleRow> p3 = tx.listActiveBundles(WS_A, new PageRequest("b4", 1));
          assertThat(ids(p3, BundleRow::bundleId)).containsExactly("b6");
          assertThat(p3.hasMore()).isFalse();
          Page<BundleRow> p4 = tx.listActiveBundles(WS_A, new PageRequest("b1", 2));
          assertThat(ids(p4, BundleRow::bundleId)).containsExactly("b3", "b4");
          assertThat(p4.hasMore()).isTrue();
          Page<BundleRow> b = tx.listActiveBundles(WS_B, new PageRequest(null, 10));
          assertThat(b.items()).containsExactly(bundle(WS_B, "b1", "agent_other", T0));
          assertBundle(tx.bundle(WS_A, "b1").orElseThrow(), bundle(WS_A, "b1", "agent_1", T0));
          return null;
        });
  }

  @Test
  void tombstonesRoundTripPerWorkspaceAndListInCodePointOrder() {
    List<String> resources =
        List.of(
            "doc:b", "Doc:z", "doc:A", "doc-1", "doc:a", "url:https://x.example/y?z=1", "doc:a/b");
    write(
        tx -> {
          for (int i = 0; i < resources.size(); i++) {
            tx.insertTombstone(
                new TombstoneRow(
                    WS_A,
                    resources.get(i),
                    i % 2 == 0 ? "reason " + i : null,
                    at(i).plusMillis(i)));
          }
          tx.insertTombstone(new TombstoneRow(WS_B, "doc:a", "other workspace", T0));
        });
    List<String> sorted = resources.stream().sorted().toList();
    read(
        tx -> {
          for (int i = 0; i < resources.size(); i++) {
            assertThat(tx.tombstone(WS_A, resources.get(i)))
                .contains(
                    new TombstoneRow(
                        WS_A,
                        resources.get(i),
                        i % 2 == 0 ? "reason " + i : null,
                        at(i).plusMillis(i)));
          }
          assertThat(tx.tombstone(WS_B, "doc:a"))
              .contains(new TombstoneRow(WS_B, "doc:a", "other workspace", T0));
          assertThat(tx.tombstone(WS_B, "doc:b")).isEmpty();
          assertThat(tx.tombstone(WS_A, "doc:c")).isEmpty();
          assertThat(tx.tombstone(WS_A, "DOC:A")).isEmpty();
          List<String> seen = new ArrayList<>();
          String after = null;
          int pages = 0;
          Page<TombstoneRow> p;
          do {
            p = tx.listTombstones(WS_A, new PageRequest(after, 3));
            seen.addAll(ids(p, TombstoneRow::resource));
            if (!p.items().isEmpty()) {
              after = p.items().get(p.items().size() - 1).resource();
            }
            pages++;
          } while (p.hasMore() && pages < 10);
          assertThat(pages).isEqualTo(3);
          assertThat(seen).containsExactlyElementsOf(sorted);
          assertThat(
                  ids(tx.listTombstones(WS_B, new PageRequest(null, 10)), TombstoneRow::resource))
              .containsExactly("doc:a");
          return null;
        });
  }

  // ---------------------------------------------------------------------------------------------
  // Receipts.

  @Test
  void receiptsRoundTripExactly() {
    ReceiptRow r1 = pendingReceipt(WS_A, ulid(1), Instant.parse("2026-11-22T10:00:00.999Z"));
    ReceiptRow bare =
        new ReceiptRow(
            WS_A,
            ulid(2),
            null,
            null,
            null,
            null,
            null,
            "workspace.key_rotated",
            null,
            at(1),
            "{\"event\":\"workspace.key_rotated\"}",
            null);
    ReceiptRow alreadySigned = signedWith(pendingReceipt(WS_A, ulid(3), at(2)), "cyAgMQ");
    write(
        tx -> {
          tx.insertReceipt(r1);
          tx.insertReceipt(bare);
          tx.insertReceipt(alreadySigned);
        });
    read(
        tx -> {
          ReceiptRow back = tx.receipt(WS_A, ulid(1)).orElseThrow();
          assertThat(back).isEqualTo(r1);
          assertThat(back.payloadJson()).isEqualTo(payloadJson(ulid(1), "allow"));
          assertThat(back.isSigned()).isFalse();
          assertThat(tx.receipt(WS_A, ulid(2))).contains(bare);
          assertThat(tx.receipt(WS_A, ulid(3))).contains(alreadySigned);
          assertThat(tx.receipt(WS_B, ulid(1))).isEmpty();
          assertThat(tx.receipt(WS_A, ulid(4))).isEmpty();
          return null;
        });
  }

  @Test
  void insertingADuplicateReceiptIdThrowsStoreExceptionAndKeepsTheFirst() {
    ReceiptRow r1 = pendingReceipt(WS_A, ulid(1), at(0));
    write(tx -> tx.insertReceipt(r1));
    ReceiptRow dup =
        receipt(
            WS_A, ulid(1), authId(2), "user_2", null, null, "email.send", "check", "deny", at(5));
    assertThatThrownBy(() -> write(tx -> tx.insertReceipt(dup))).isInstanceOf(StoreException.class);
    assertThat(read((Tx tx) -> tx.receipt(WS_A, ulid(1)))).contains(r1);
    // The store stays usable after the failed transaction.
    write(tx -> tx.insertReceipt(pendingReceipt(WS_A, ulid(2), at(1))));
    assertThat(read((Tx tx) -> tx.receipt(WS_A, ulid(2)))).isPresent();
  }

  private void insertFilterReceipts() {
    write(
        tx -> {
          tx.insertReceipt(
              receipt(
                  WS_A,
                  ulid(1),
                  authId(1),
                  "user_1",
                  "doc:1",
                  "sess_1",
                  "calendar.read",
                  "check",
                  "allow",
                  at(0)));
          tx.insertReceipt(
              receipt(
                  WS_A,
                  ulid(2),
                  authId(1),
                  "user_1",
                  "doc:2",
                  "sess_2",
                  "email.send",
                  "check",
                  "deny",
                  at(1)));
          tx.insertReceipt(
              receipt(
                  WS_A,
                  ulid(3),
                  authId(2),
                  "user_2",
                  "doc:1",
                  "sess_1",
                  "calendar.read",
                  "confirmation.resolved",
                  "allow",
                  at(2)));
          tx.insertReceipt(
              receipt(
                  WS_A,
                  ulid(4),
                  authId(2),
                  "user_2",
                  null,
                  null,
                  "email.send",
                  "check",
                  "confirm",
                  at(3)));
          tx.insertReceipt(
              receipt(
                  WS_A,
                  ulid(5),
                  null,
                  null,
                  null,
                  null,
                  null,
                  "authorization.revoked",
                  null,
                  at(4)));
          tx.insertReceipt(
              receipt(
                  WS_B,
                  ulid(6),
                  authId(1),
                  "user_1",
                  "doc:1",
                  "sess_1",
                  "calendar.read",
                  "check",
                  "allow",
                  at(0)));
        });
  }

  private List<String> receiptIds(String ws, ReceiptFilter f) {
    return read(
        tx -> ids(tx.listReceipts(ws, f, new PageRequest(null, 100)), ReceiptRow::receiptId));
  }

  @Test
  void listReceiptsFiltersByEveryMember() {
    insertFilterReceipts();
    ReceiptFilter none = new ReceiptFilter(null, null, null, null, null, null, null, null, null);
    assertThat(receiptIds(WS_A, none)).containsExactly(ulid(1), ulid(2), ulid(3), ulid(4), ulid(5));
    assertThat(
            receiptIds(
                WS_A, new ReceiptFilter(authId(1), null, null, null, null, null, null, null, null)))
        .containsExactly(ulid(1), ulid(2));
    assertThat(
            receiptIds(
                WS_A, new ReceiptFilter(null, "user_2", null, null, null, null, null, null, null)))
        .containsExactly(ulid(3), ulid(4));
    assertThat(
            receiptIds(
                WS_A, new ReceiptFilter(null, null, "doc:1", null, null, null, null, null, null)))
        .containsExactly(ulid(1), ulid(3));
    assertThat(
            receiptIds(
                WS_A, new ReceiptFilter(null, null, null, "sess_1", null, null, null, null, null)))
        .containsExactly(ulid(1), ulid(3));
    assertThat(
            receiptIds(
                WS_A,
                new ReceiptFilter(null, null, null, null, "email.send", null, null, null, null)))
        .containsExactly(ulid(2), ulid(4));
    assertThat(
            receiptIds(
                WS_A, new ReceiptFilter(null, null, null, null, null, "check", null, null, null)))
        .containsExactly(ulid(1), ulid(2), ulid(4));
    assertThat(
            receiptIds(
                WS_A, new ReceiptFilter(null, null, null, null, null, null, "allow", null, null)))
        .containsExactly(ulid(1), ulid(3));
    assertThat(
            receiptIds(
                WS_A,
                new ReceiptFilter(authId(2), null, null, null, null, null, "allow", null, null)))
        .containsExactly(ulid(3));
    assertThat(
            receiptIds(
                WS_A,
                new ReceiptFilter(authId(2), "user_1", null, null, null, null, null, null, null)))
        .isEmpty();
    assertThat(
            receiptIds(
                WS_A, new ReceiptFilter(null, null, "doc:3", null, null, null, null, null, null)))
        .isEmpty();
    assertThat(
            receiptIds(
                WS_B, new ReceiptFilter(authId(1), null, null, null, null, null, null, null, null)))
        .containsExactly(ulid(6));
    assertThat(receiptIds("ws_none", none)).isEmpty();
  }

  @Test
  void listReceiptsTimeBoundsAreFromInclusiveToExclusive() {
    insertFilterReceipts();
    assertThat(
            receiptIds(
                WS_A, new ReceiptFilter(null, null, null, null, null, null, null, at(1), null)))
        .containsExactly(ulid(2), ulid(3), ulid(4), ulid(5));
    assertThat(
            receiptIds(
                WS_A,
                new ReceiptFilter(
                    null, null, null, null, null, null, null, at(1).plusMillis(1), null)))
        .containsExactly(ulid(3), ulid(4), ulid(5));
    assertThat(
            receiptIds(
                WS_A, new ReceiptFilter(null, null, null, null, null, null, null, null, at(3))))
        .containsExactly(ulid(1), ulid(2), ulid(3));
    assertThat(
            receiptIds(
                WS_A,
                new ReceiptFilter(
                    null, null, null, null, null, null, null, null, at(3).plusMillis(1))))
        .containsExactly(ulid(1), ulid(2), ulid(3), ulid(4));
    assertThat(
            receiptIds(
                WS_A, new ReceiptFilter(null, null, null, null, null, null, null, at(1), at(3))))
        .containsExactly(ulid(2), ulid(3));
    assertThat(
            receiptIds(
                WS_A, new ReceiptFilter(null, null, null, null, null, null, null, at(2), at(2))))
        .isEmpty();
    assertThat(
            receiptIds(
                WS_A, new ReceiptFilter(null, null, null, null, null, "check", null, at(1), at(4))))
        .containsExactly(ulid(2), ulid(4));
  }

  @Test
  void listReceiptsPaginates() {
    insertFilterReceipts();
    ReceiptFilter check =
        new ReceiptFilter(null, null, null, null, null, "check", null, null, null);
    read(
        tx -> {
          Page<ReceiptRow> p1 = tx.listReceipts(WS_A, check, new PageRequest(null, 2));
          assertThat(ids(p1, ReceiptRow::receiptId)).containsExactly(ulid(1), ulid(2));
          assertThat(p1.hasMore()).isTrue();
          Page<ReceiptRow> p2 = tx.listReceipts(WS_A, check, new PageRequest(ulid(2), 2));
          assertThat(ids(p2, ReceiptRow::receiptId)).containsExactly(ulid(4));
          assertThat(p2.hasMore()).isFalse();
          ReceiptFilter none =
              new ReceiptFilter(null, null, null, null, null, null, null, null, null);
          Page<ReceiptRow> all = tx.listReceipts(WS_A, none, new PageRequest(ulid(2), 3));
          assertThat(ids(all, ReceiptRow::receiptId)).containsExactly(ulid(3), ulid(4), ulid(5));
          assertThat(all.hasMore()).isFalse();
          Page<ReceiptRow> two = tx.listReceipts(WS_A, none, new PageRequest(ulid(2), 2));
          assertThat(two.hasMore()).isTrue();
          assertThat(all.items().get(0))
              .isEqualTo(
                  receipt(
                      WS_A,
                      ulid(3),
                      authId(2),
                      "user_2",
                      "doc:1",
                      "sess_1",
                      "calendar.read",
                      "confirmation.resolved",
                      "allow",
                      at(2)));
          return null;
        });
  }

  @Test
  void pendingReceiptsSpanWorkspacesInIdOrder() {
    ReceiptRow a1 = pendingReceipt(WS_A, ulid(1), at(0));
    ReceiptRow b2 = pendingReceipt(WS_B, ulid(2), at(1));
    ReceiptRow a3 = signedWith(pendingReceipt(WS_A, ulid(3), at(2)), "Mw");
    ReceiptRow b4 = pendingReceipt(WS_B, ulid(4), at(3));
    ReceiptRow a5 = pendingReceipt(WS_A, ulid(5), at(4));
    write(
        tx -> {
          tx.insertReceipt(a5);
          tx.insertReceipt(b4);
          tx.insertReceipt(a3);
        });
    write(
        tx -> {
          tx.insertReceipt(b2);
          tx.insertReceipt(a1);
        });
    read(
        tx -> {
          assertThat(tx.pendingReceipts(null, 10)).containsExactly(a1, b2, b4, a5);
          assertThat(tx.pendingReceipts(null, 2)).containsExactly(a1, b2);
          assertThat(tx.pendingReceipts(ulid(2), 2)).containsExactly(b4, a5);
          assertThat(tx.pendingReceipts(ulid(3), 10)).containsExactly(b4, a5);
          assertThat(tx.pendingReceipts(ulid(5), 10)).isEmpty();
          return null;
        });
    assertThat(store.inTransaction((Tx tx) -> tx.markSigned(WS_B, ulid(2), signedJson(b2, "Mg"))))
        .isTrue();
    assertThat(read((Tx tx) -> tx.pendingReceipts(null, 10))).containsExactly(a1, b4, a5);
  }

  @Test
  void pendingReceiptsOfOneWorkspaceInIdOrderAndTheWorkspacesThatHaveAny() {
    assertThat(read((Tx tx) -> tx.pendingWorkspaces(null, 10))).isEmpty();
    ReceiptRow a1 = pendingReceipt(WS_A, ulid(1), at(0));
    ReceiptRow b2 = pendingReceipt(WS_B, ulid(2), at(1));
    ReceiptRow a3 = signedWith(pendingReceipt(WS_A, ulid(3), at(2)), "Mw");
    ReceiptRow b4 = pendingReceipt(WS_B, ulid(4), at(3));
    ReceiptRow a5 = pendingReceipt(WS_A, ulid(5), at(4));
    write(
        tx -> {
          tx.insertReceipt(a5);
          tx.insertReceipt(b4);
          tx.insertReceipt(a3);
          tx.insertReceipt(b2);
          tx.insertReceipt(a1);
        });
    read(
        tx -> {
          assertThat(tx.pendingReceipts(WS_A, null, 10)).containsExactly(a1, a5);
          assertThat(tx.pendingReceipts(WS_A, null, 1)).containsExactly(a1);
          assertThat(tx.pendingReceipts(WS_A, ulid(1), 10)).containsExactly(a5);
          assertThat(tx.pendingReceipts(WS_B, ulid(2), 10)).containsExactly(b4);
          assertThat(tx.pendingReceipts(WS_B, ulid(4), 10)).isEmpty();
          assertThat(tx.countPendingReceipts(WS_A, 10)).isEqualTo(2);
          assertThat(tx.countPendingReceipts(WS_A, 1)).isEqualTo(1);
          assertThat(tx.countPendingReceipts(WS_B, 10)).isEqualTo(2);
          assertThat(tx.pendingWorkspaces(null, 10)).containsExactly(WS_A, WS_B);
          assertThat(tx.pendingWorkspaces(null, 1)).containsExactly(WS_A);
          assertThat(tx.pendingWorkspaces(WS_A, 10)).containsExactly(WS_B);
          assertThat(tx.pendingWorkspaces(WS_B, 10)).isEmpty();
          return null;
        });
    store.inTransaction(
        (Tx tx) ->
            tx.markSignedAll(
                List.of(
                    new Tx.Signed(WS_B, ulid(2), signedJson(b2, "Mg")),
                    new Tx.Signed(WS_B, ulid(4), signedJson(b4, "NA")))));
    read(
        tx -> {
          assertThat(tx.pendingReceipts(WS_B, null, 10)).isEmpty();
          assertThat(tx.countPendingReceipts(WS_B, 10)).isZero();
          assertThat(tx.pendingWorkspaces(null, 10)).containsExactly(WS_A);
          return null;
        });
  }

  @Test
  void countPendingReceiptsCountsEveryWorkspacesUnsignedReceiptsUpToTheCap() {
    assertThat(read((Tx tx) -> tx.countPendingReceipts(10))).isZero();
    ReceiptRow a1 = pendingReceipt(WS_A, ulid(1), at(0));
    ReceiptRow b2 = pendingReceipt(WS_B, ulid(2), at(1));
    ReceiptRow a3 = signedWith(pendingReceipt(WS_A, ulid(3), at(2)), "Mw");
    ReceiptRow b4 = pendingReceipt(WS_B, ulid(4), at(3));
    write(
        tx -> {
          tx.insertReceipt(a1);
          tx.insertReceipt(b2);
          tx.insertReceipt(a3);
          tx.insertReceipt(b4);
        });
    assertThat(read((Tx tx) -> tx.countPendingReceipts(10))).isEqualTo(3);
    assertThat(read((Tx tx) -> tx.countPendingReceipts(2))).isEqualTo(2);
    assertThat(store.inTransaction((Tx tx) -> tx.markSigned(WS_B, ulid(2), signedJson(b2, "Mg"))))
        .isTrue();
    assertThat(read((Tx tx) -> tx.countPendingReceipts(10))).isEqualTo(2);
  }

  @Test
  void claimPendingReturnsPendingReceiptsIssuedStrictlyBefore() {
    ReceiptRow a1 = pendingReceipt(WS_A, ulid(1), at(0));
    ReceiptRow b2 = pendingReceipt(WS_B, ulid(2), at(1));
    ReceiptRow a3 = signedWith(pendingReceipt(WS_A, ulid(3), at(-100)), "Mw");
    ReceiptRow b4 = pendingReceipt(WS_B, ulid(4), at(2));
    ReceiptRow a5 = pendingReceipt(WS_A, ulid(5), at(-50)); // newer id, issued earlier
    write(
        tx -> {
          for (ReceiptRow r : List.of(b4, a1, a5, a3, b2)) {
            tx.insertReceipt(r);
          }
        });
    store.inTransaction(
        tx -> {
          assertThat(tx.claimPending(at(2), 10)).containsExactly(a1, b2, a5);
          return null;
        });
    store.inTransaction(
        tx -> {
          assertThat(tx.claimPending(at(2).plusMillis(1), 10)).containsExactly(a1, b2, b4, a5);
          return null;
        });
    store.inTransaction(
        tx -> {
          assertThat(tx.claimPending(at(2), 2)).containsExactly(a1, b2);
          return null;
        });
    store.inTransaction(
        tx -> {
          assertThat(tx.claimPending(at(0), 10)).containsExactly(a5);
          assertThat(tx.claimPending(at(-50), 10)).isEmpty();
          return null;
        });
    // Claimed but not signed receipts are claimable again by a later transaction.
    store.inTransaction(
        tx -> {
          List<ReceiptRow> claimed = tx.claimPending(at(10), 1);
          assertThat(claimed).containsExactly(a1);
          assertThat(tx.markSigned(WS_A, ulid(1), signedJson(a1, "sig1"))).isTrue();
          return null;
        });
    store.inTransaction(
        tx -> {
          assertThat(tx.claimPending(at(10), 10)).containsExactly(b2, b4, a5);
          return null;
        });
  }

  @Test
  void authorizationForCheckLocksTheAuthorizationAndTellsWhetherTheResourceIsTombstoned() {
    AuthorizationRow a = fullAuthorization(WS_A, authId(1));
    write(
        tx -> {
          tx.insertAuthorization(a);
          tx.insertAuthorization(fullAuthorization(WS_B, authId(2)));
          tx.insertTombstone(new TombstoneRow(WS_A, "doc:gone", "legal hold", T0));
          tx.insertTombstone(new TombstoneRow(WS_B, "doc:b-only", null, T0));
        });
    store.inTransaction(
        (Tx tx) -> {
          assertThat(tx.authorizationForCheck(WS_A, authId(1), "doc:gone"))
              .isEqualTo(new Tx.CheckTarget(java.util.Optional.of(a), true));
          assertThat(tx.authorizationForCheck(WS_A, authId(1), "doc:kept"))
              .isEqualTo(new Tx.CheckTarget(java.util.Optional.of(a), false));
          assertThat(tx.authorizationForCheck(WS_A, authId(1), null))
              .isEqualTo(new Tx.CheckTarget(java.util.Optional.of(a), false));
          // Another workspace's tombstone does not count; another workspace's row is invisible.
          assertThat(tx.authorizationForCheck(WS_A, authId(1), "doc:b-only").resourceTombstoned())
              .isFalse();
          assertThat(tx.authorizationForCheck(WS_A, authId(2), "doc:gone"))
              .isEqualTo(new Tx.CheckTarget(java.util.Optional.empty(), false));
          assertThat(tx.authorizationForCheck(WS_A, authId(9), null))
              .isEqualTo(new Tx.CheckTarget(java.util.Optional.empty(), false));
          return null;
        });
  }

  @Test
  void authorizationForCheckSeesEveryCommittedWriteToTheAuthorizationAndTombstones() {
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
    store.inTransaction(
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
  void authorizationForCheckForgetsWhatARolledBackTransactionWrote() {
    AuthorizationRow a = fullAuthorization(WS_A, authId(1));
    write(tx -> tx.insertAuthorization(a));
    assertThat(checkTarget(authId(1), "doc:1")).isEqualTo(target(a, false));
    AuthorizationRow created = fullAuthorization(WS_A, authId(2));
    assertThatThrownBy(
            () ->
                store.inTransaction(
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

  /** What a check of {@code authorizationId} in {@link #WS_A} on {@code resource} reads. */
  @Test
  void patternTombstonesRoundTripAndEveryCheckSeesThem() {
    AuthorizationRow a = fullAuthorization(WS_A, authId(1));
    write(
        tx -> {
          tx.insertAuthorization(a);
          tx.insertTombstonePattern(TombstoneRow.pattern(WS_A, "db/*", "prod", at(1)));
          tx.insertTombstonePattern(TombstoneRow.pattern(WS_B, "*", null, T0));
        });
    assertThat(checkTarget(authId(1), "x").tombstonePatterns()).containsExactly("db/*");
    read(
        tx -> {
          assertThat(tx.tombstonePattern(WS_A, "db/*"))
              .contains(TombstoneRow.pattern(WS_A, "db/*", "prod", at(1)));
          assertThat(tx.tombstonePattern(WS_A, "*")).isEmpty();
          // a pattern is not an exact tombstone of its text, nor an exact one a pattern
          assertThat(tx.tombstone(WS_A, "db/*")).isEmpty();
          assertThat(tx.tombstonePatterns(WS_B)).containsExactly("*");
          return null;
        });

    // A new pattern is seen by the next check (a store that keeps what it read forgets it).
    write(tx -> tx.insertTombstonePattern(TombstoneRow.pattern(WS_A, "a*", null, at(2))));
    assertThat(checkTarget(authId(1), "x").tombstonePatterns()).containsExactly("a*", "db/*");
    assertThat(checkTarget(authId(1), null).tombstonePatterns()).containsExactly("a*", "db/*");

    // One that a rolled-back transaction wrote is not, even after a check read it inside.
    assertThatThrownBy(
            () ->
                store.inTransaction(
                    (Tx tx) -> {
                      tx.insertTombstonePattern(TombstoneRow.pattern(WS_A, "z*", null, at(3)));
                      assertThat(tx.authorizationForCheck(WS_A, authId(1), "x").tombstonePatterns())
                          .containsExactly("a*", "db/*", "z*");
                      throw new WorkFailure("undo it");
                    }))
        .isInstanceOf(WorkFailure.class);
    assertThat(checkTarget(authId(1), "x").tombstonePatterns()).containsExactly("a*", "db/*");
    assertThat(checkTarget(authId(9), "x")).isEqualTo(new Tx.CheckTarget(Optional.empty(), false));

    read(
        tx -> {
          Page<TombstoneRow> first = tx.listTombstonePatterns(WS_A, new PageRequest(null, 1));
          assertThat(ids(first, TombstoneRow::resourcePattern)).containsExactly("a*");
          assertThat(first.hasMore()).isTrue();
          Page<TombstoneRow> rest = tx.listTombstonePatterns(WS_A, new PageRequest("a*", 5));
          assertThat(ids(rest, TombstoneRow::resourcePattern)).containsExactly("db/*");
          assertThat(rest.hasMore()).isFalse();
          return null;
        });
  }

  protected final Tx.CheckTarget checkTarget(String authorizationId, String resource) {
    return store.inTransaction(
        (Tx tx) -> tx.authorizationForCheck(WS_A, authorizationId, resource));
  }

  protected static Tx.CheckTarget target(AuthorizationRow row, boolean tombstoned) {
    return new Tx.CheckTarget(Optional.of(row), tombstoned);
  }

  @Test
  void markSignedAllStoresEachPendingReceiptOnceAndReportsWhichItStored() {
    ReceiptRow r1 = pendingReceipt(WS_A, ulid(1), at(0));
    ReceiptRow r2 = signedWith(pendingReceipt(WS_A, ulid(2), at(0)), "b3JpZ2luYWw");
    ReceiptRow r3 = pendingReceipt(WS_B, ulid(3), at(0));
    write(
        tx -> {
          tx.insertReceipt(r1);
          tx.insertReceipt(r2);
          tx.insertReceipt(r3);
        });
    List<Tx.Signed> batch =
        List.of(
            new Tx.Signed(WS_A, ulid(1), signedJson(r1, "b25l")),
            new Tx.Signed(WS_A, ulid(2), signedJson(r2, "dHdv")),
            new Tx.Signed(WS_A, ulid(3), signedJson(r3, "d3Jvbmc")), // wrong workspace
            new Tx.Signed(WS_B, ulid(3), signedJson(r3, "dGhyZWU")),
            new Tx.Signed(WS_A, ulid(9), signedJson(r1, "bm9uZQ")));
    assertThat(store.inTransaction((Tx tx) -> tx.markSignedAll(batch)))
        .containsExactly(true, false, false, true, false);
    assertThat(store.inTransaction((Tx tx) -> tx.markSignedAll(batch)))
        .containsExactly(false, false, false, false, false);
    assertThat(store.inTransaction((Tx tx) -> tx.markSignedAll(List.of()))).isEmpty();
    read(
        tx -> {
          assertThat(tx.receipt(WS_A, ulid(1))).contains(signed(r1, signedJson(r1, "b25l")));
          assertThat(tx.receipt(WS_A, ulid(2))).contains(r2);
          assertThat(tx.receipt(WS_B, ulid(3))).contains(signed(r3, signedJson(r3, "dGhyZWU")));
          assertThat(tx.pendingReceipts(null, 10)).isEmpty();
          return null;
        });
  }

  @Test
  void markSignedStoresOnceThenReturnsFalseAndKeepsTheFirstSignature() {
    ReceiptRow r = pendingReceipt(WS_A, ulid(1), at(0));
    ReceiptRow pending2 = pendingReceipt(WS_A, ulid(2), at(0));
    ReceiptRow signedAtInsert = signed(pending2, signedJson(pending2, "b3JpZ2luYWw"));
    write(
        tx -> {
          tx.insertReceipt(r);
          tx.insertReceipt(signedAtInsert);
        });
    String first = signedJson(r, "Zmlyc3Q");
    String second = signedJson(r, "c2Vjb25k");
    assertThat(store.inTransaction((Tx tx) -> tx.markSigned(WS_B, ulid(1), first))).isFalse();
    assertThat(read((Tx tx) -> tx.receipt(WS_A, ulid(1)))).contains(r);
    assertThat(store.inTransaction((Tx tx) -> tx.markSigned(WS_A, ulid(1), first))).isTrue();
    assertThat(store.inTransaction((Tx tx) -> tx.markSigned(WS_A, ulid(1), second))).isFalse();
    assertThat(store.inTransaction((Tx tx) -> tx.markSigned(WS_A, ulid(1), first))).isFalse();
    assertThat(store.inTransaction((Tx tx) -> tx.markSigned(WS_A, ulid(2), second))).isFalse();
    assertThat(store.inTransaction((Tx tx) -> tx.markSigned(WS_A, ulid(9), first))).isFalse();
    read(
        tx -> {
          ReceiptRow back = tx.receipt(WS_A, ulid(1)).orElseThrow();
          assertThat(back).isEqualTo(signed(r, first));
          assertThat(back.isSigned()).isTrue();
          assertThat(back.payloadJson()).isEqualTo(r.payloadJson());
          assertThat(tx.receipt(WS_A, ulid(2))).contains(signedAtInsert);
          assertThat(tx.receipt(WS_A, ulid(9))).isEmpty();
          assertThat(tx.pendingReceipts(null, 10)).isEmpty();
          return null;
        });
    // Within one transaction the second call also sees the first.
    ReceiptRow r3 = pendingReceipt(WS_A, ulid(3), at(0));
    write(tx -> tx.insertReceipt(r3));
    store.inTransaction(
        tx -> {
          assertThat(tx.markSigned(WS_A, ulid(3), signedJson(r3, "YQ"))).isTrue();
          assertThat(tx.markSigned(WS_A, ulid(3), signedJson(r3, "Yg"))).isFalse();
          return null;
        });
    assertThat(read((Tx tx) -> tx.receipt(WS_A, ulid(3))).orElseThrow().signedJson())
        .isEqualTo(signedJson(r3, "YQ"));
  }

  @Test
  void markSignedRefusesATextThatIsNotThePayloadWithASignatureMemberAppended() {
    ReceiptRow r = pendingReceipt(WS_A, ulid(1), at(0));
    ReceiptRow other = pendingReceipt(WS_A, ulid(2), at(0));
    write(
        tx -> {
          tx.insertReceipt(r);
          tx.insertReceipt(other);
        });
    String good = signedJson(r, "Z29vZA");
    List<String> refused =
        List.of(
            "{\"signed\":true}", // no signature member
            signedJson(other, "b3RoZXI"), // another receipt's payload
            good.substring(0, good.length() - 1), // truncated
            r.payloadJson()); // the payload alone
    for (String text : refused) {
      assertThat(store.inTransaction((Tx tx) -> tx.markSigned(WS_A, ulid(1), text)))
          .as(text)
          .isFalse();
    }
    List<Tx.Signed> batch = refused.stream().map(t -> new Tx.Signed(WS_A, ulid(1), t)).toList();
    assertThat(store.inTransaction((Tx tx) -> tx.markSignedAll(batch)))
        .containsExactly(false, false, false, false);
    assertThat(read((Tx tx) -> tx.receipt(WS_A, ulid(1)))).contains(r);
    assertThat(read((Tx tx) -> tx.pendingReceipts(null, 10))).containsExactly(r, other);
    assertThat(store.inTransaction((Tx tx) -> tx.markSigned(WS_A, ulid(1), good))).isTrue();
    assertThat(read((Tx tx) -> tx.receipt(WS_A, ulid(1)))).contains(signed(r, good));
  }

  // ---------------------------------------------------------------------------------------------
  // Idempotency records.

  @Test
  void idempotencyRecordsRoundTripByteForByte() {
    byte[] body = new byte[300];
    for (int i = 0; i < body.length; i++) {
      body[i] = (byte) i;
    }
    String k1 = "1f".repeat(32);
    String k2 = "2e".repeat(32);
    IdempotencyRow r1 = idem(k1, "order-7781", body, Instant.parse("2026-11-22T10:00:00.333Z"));
    IdempotencyRow r2 =
        idem(k2, "order-7781", "{\"caf\u00e9\":true}".getBytes(StandardCharsets.UTF_8), T0);
    IdempotencyRow empty =
        new IdempotencyRow(k1, "delete-1", "sha256:e3b0", 204, "", new byte[0], T0);
    write(
        tx -> {
          tx.insertIdempotency(r1);
          tx.insertIdempotency(r2);
          tx.insertIdempotency(empty);
        });
    read(
        tx -> {
          assertIdempotency(tx.idempotency(k1, "order-7781").orElseThrow(), r1);
          assertIdempotency(tx.idempotency(k2, "order-7781").orElseThrow(), r2);
          assertIdempotency(tx.idempotency(k1, "delete-1").orElseThrow(), empty);
          assertThat(tx.idempotency(k2, "delete-1")).isEmpty();
          assertThat(tx.idempotency(k1, "order-7782")).isEmpty();
          return null;
        });
  }

  @Test
  void purgeIdempotencyDeletesOnlyRecordsOlderThanTheCutoff() {
    Instant cutoff = T0.minus(Duration.ofHours(24));
    String k = "3d".repeat(32);
    write(
        tx -> {
          tx.insertIdempotency(idem(k, "old-1", new byte[] {1}, cutoff.minus(Duration.ofHours(1))));
          tx.insertIdempotency(idem(k, "old-2", new byte[] {2}, cutoff.minusMillis(1)));
          tx.insertIdempotency(
              idem("4c".repeat(32), "old-3", new byte[] {3}, cutoff.minusMillis(5)));
          tx.insertIdempotency(idem(k, "at-cutoff", new byte[] {4}, cutoff));
          tx.insertIdempotency(idem(k, "fresh", new byte[] {5}, T0));
        });
    assertThat(store.inTransaction((Tx tx) -> tx.purgeIdempotency(cutoff))).isEqualTo(3);
    read(
        tx -> {
          assertThat(tx.idempotency(k, "old-1")).isEmpty();
          assertThat(tx.idempotency(k, "old-2")).isEmpty();
          assertThat(tx.idempotency("4c".repeat(32), "old-3")).isEmpty();
          assertThat(tx.idempotency(k, "at-cutoff")).isPresent();
          assertThat(tx.idempotency(k, "fresh")).isPresent();
          return null;
        });
    assertThat(store.inTransaction((Tx tx) -> tx.purgeIdempotency(cutoff))).isZero();
    assertThat(store.inTransaction((Tx tx) -> tx.purgeIdempotency(T0.plusMillis(1)))).isEqualTo(2);
    assertThat(read((Tx tx) -> tx.idempotency(k, "fresh"))).isEmpty();
  }

  // ---------------------------------------------------------------------------------------------
  // Locks and atomicity.

  @Test
  void lockCanBeTakenTwiceInOneTransaction() {
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

  /** A failure thrown by a unit of work. */
  static final class WorkFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    WorkFailure(String message) {
      super(message);
    }
  }

  @Test
  void workThatThrowsAfterManyWritesLeavesNoTraceAndTheExceptionPropagatesUnchanged() {
    writeOneOfEverything(store);
    WorkFailure failure = new WorkFailure("boom after writes");
    assertThatThrownBy(
            () ->
                store.inTransaction(
                    tx -> {
                      tx.insertWorkspace(new WorkspaceRow(WS_B, "free", T0));
                      tx.insertApiKey(apiKey("b".repeat(64), WS_B, T0));
                      tx.insertSigningKey(signingKey(WS_B, "ws_b/01jdq4zk3m0001", 9, T0));
                      tx.updateSigningKey(
                          signingKey(WS_A, "ws_a/01jdq4zk3m0001", 3, at(-3400)).retiredAt(T0));
                      tx.insertAuthorization(fullAuthorization(WS_B, authId(7)));
                      tx.updateAuthorization(
                          fullAuthorization(WS_A, authId(1)).withBudgetSpent(99).withRevokedAt(T0));
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
                                  EscalationStatus.Known.APPROVED, "alice", at(2), null, at(60)));
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
    assertOneOfEverything(store);
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
  void storeExceptionsAndErrorsFromWorkPropagateUnchangedAndRollBack() {
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
  void aFailedStatementRollsBackTheEarlierWritesOfItsTransaction() {
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

  // ---------------------------------------------------------------------------------------------
  // The receipt log (LogConformance).

  @Test
  void logUnloggedReceiptsAreTheSignedOnesInIdOrderAndAppendingTakesThem() {
    LogConformance.unloggedReceiptsAreTheSignedOnesInIdOrderAndAppendingTakesThem(store);
  }

  @Test
  void logAppendingFromAStaleSizeChangesNothing() {
    LogConformance.appendingFromAStaleSizeChangesNothing(store);
  }

  @Test
  void logAppendingAReceiptTwiceOrAnUnsignedOneFailsAndRollsBack() {
    LogConformance.appendingAReceiptTwiceOrAnUnsignedOneFailsAndRollsBack(store);
  }

  @Test
  void logATransactionThatThrowsLeavesTheLogAsItWas() {
    LogConformance.aTransactionThatThrowsLeavesTheLogAsItWas(store);
  }

  @Test
  void logCheckpointsCosignaturesAndWitnessesRoundTrip() {
    LogConformance.checkpointsCosignaturesAndWitnessesRoundTrip(store);
  }

  @Test
  void logUncheckpointedWorkspacesAreThoseWhoseLogOutgrewTheirNewestCheckpoint() {
    LogConformance.uncheckpointedWorkspacesAreThoseWhoseLogOutgrewTheirNewestCheckpoint(store);
  }

  @Test
  void logConcurrentAppendsNeverLeaveAGapOrADuplicate() throws Exception {
    LogConformance.concurrentAppendsNeverLeaveAGapOrADuplicate(store);
  }

  // ---------------------------------------------------------------------------------------------
  // Concurrency.

  /** Runs {@code task(thread)} on {@code threads} threads released together; returns results. */
  protected static <T> List<T> runConcurrently(int threads, ThreadTask<T> task) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      CountDownLatch ready = new CountDownLatch(threads);
      CountDownLatch go = new CountDownLatch(1);
      List<Future<T>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        Callable<T> c =
            () -> {
              ready.countDown();
              go.await();
              return task.run(thread);
            };
        futures.add(pool.submit(c));
      }
      ready.await();
      go.countDown();
      List<T> results = new ArrayList<>();
      for (Future<T> f : futures) {
        results.add(f.get(120, TimeUnit.SECONDS)); // a deadline against hangs, not a timing check
      }
      return results;
    } finally {
      pool.shutdownNow();
      pool.awaitTermination(30, TimeUnit.SECONDS);
    }
  }

  /** The work of one thread in {@link #runConcurrently}. */
  @FunctionalInterface
  protected interface ThreadTask<T> {
    T run(int thread) throws Exception;
  }

  @Test
  void concurrentTransactionsNeverExceedTheDailyLimitOrTheBudget() throws Exception {
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
                    store.inTransaction(
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
  void concurrentGroupedTransactionsKeepLimitsAndLoseNothing() throws Exception {
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
                  store.inGroupedTransaction(
                      new Store.GroupKey(WS_A, authorizationId, "doc:1"),
                      tx -> {
                        AuthorizationRow a =
                            tx.authorizationForCheck(WS_A, authorizationId, "doc:1")
                                .authorization()
                                .orElseThrow();
                        long count = tx.allowCount(WS_A, authorizationId, "payments.charge", DAY);
                        boolean allowed = count < maxPerDay;
                        if (allowed) {
                          tx.addAllowCount(WS_A, authorizationId, "payments.charge", DAY, 1);
                        }
                        if (allowed && a.budgetSpentMicros() + price <= a.budgetLimitMicros()) {
                          tx.updateAuthorization(a.withBudgetSpent(a.budgetSpentMicros() + price));
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
  void concurrentAddAllowCountsAreNeverLost() throws Exception {
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
  void concurrentIdempotencyInsertsUnderALockHappenOncePerKey() throws Exception {
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
                    store.inTransaction(
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
