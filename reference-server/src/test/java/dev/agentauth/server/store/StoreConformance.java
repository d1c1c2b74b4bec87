package dev.agentauth.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.server.domain.AuthorizationRow;
import dev.agentauth.server.domain.EscalationRow;
import dev.agentauth.server.domain.GrantRow;
import dev.agentauth.server.domain.NonceRow;
import dev.agentauth.server.domain.ScopeRule;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The behaviour every {@link Store} must have, with {@link MemoryStore} as the reference. A
 * subclass supplies a fresh, empty store per test and inherits every area of the suite, one
 * interface per area (mostly one per {@link Tx} role), each in its own file:
 *
 * <ul>
 *   <li>{@link TransactionConformance}: work results, visibility, locks, atomicity;
 *   <li>{@link WorkspaceConformance}: workspaces and API keys;
 *   <li>{@link AuthorizationConformance}: authorizations and their list;
 *   <li>{@link CheckConformance}: allow counters and what a check reads;
 *   <li>{@link ConfirmationConformance}: nonces and approval windows;
 *   <li>{@link EscalationConformance}: escalations and their list;
 *   <li>{@link BundleConformance} and {@link TombstoneConformance};
 *   <li>{@link ReceiptConformance}: receipts and their list;
 *   <li>{@link SigningConformance}: signing keys, pending receipts, signatures;
 *   <li>{@link IdempotencyConformance}: idempotency records;
 *   <li>{@link LogTxConformance}: the receipt log;
 *   <li>{@link PagingConformance}: keyset pagination while rows are written;
 *   <li>{@link ConcurrencyConformance}: counters and budgets under concurrency.
 * </ul>
 *
 * <p>This class holds what the areas share: the store's life cycle and the fixtures (ids, times,
 * rows of every kind), also used by other store tests.
 */
public abstract class StoreConformance
    implements TransactionConformance,
        WorkspaceConformance,
        AuthorizationConformance,
        CheckConformance,
        ConfirmationConformance,
        EscalationConformance,
        BundleConformance,
        TombstoneConformance,
        ReceiptConformance,
        SigningConformance,
        IdempotencyConformance,
        LogTxConformance,
        PagingConformance,
        ConcurrencyConformance {
  protected static final String WS_A = "ws_a";
  protected static final String WS_B = "ws_b";
  protected static final Instant T0 = Instant.parse("2026-11-22T10:00:00.000Z");
  protected static final LocalDate DAY = LocalDate.parse("2026-11-22");
  protected static final ObjectMapper JSON = new ObjectMapper();

  /** The store under test; closed after each test. Subclasses may replace it (e.g. on reopen). */
  protected Store store;

  @Override
  public final Store store() {
    return store;
  }

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

  protected static void write(Store s, Consumer<Tx> work) {
    s.inTransaction(
        tx -> {
          work.accept(tx);
          return null;
        });
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

  /** A {@code full} key row whose id derives from its hash. */
  protected static ApiKeyRow apiKey(String hash, String workspaceId, Instant createdAt) {
    return ApiKeyRow.full(hash, "key_" + hash.substring(0, 26), workspaceId, null, createdAt);
  }

  protected static Tx.CheckTarget target(AuthorizationRow row, boolean tombstoned) {
    return new Tx.CheckTarget(Optional.of(row), tombstoned);
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

  static <T> List<String> ids(Page<T> page, java.util.function.Function<T, String> id) {
    return page.items().stream().map(id).toList();
  }

  /** A failure thrown by a unit of work. */
  static final class WorkFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    WorkFailure(String message) {
      super(message);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // One row in every table: used for atomicity (TransactionConformance) and for durability by the
  // SQL stores.

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
}
