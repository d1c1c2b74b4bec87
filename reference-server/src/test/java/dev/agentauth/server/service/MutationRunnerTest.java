package dev.agentauth.server.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.model.ApiKeyRole;
import dev.agentauth.model.Decision;
import dev.agentauth.model.Plan;
import dev.agentauth.model.Reason;
import dev.agentauth.model.ReceiptEvent;
import dev.agentauth.model.ReceiptRef;
import dev.agentauth.server.TestClock;
import dev.agentauth.server.signing.SigningService;
import dev.agentauth.server.store.CheckTx;
import dev.agentauth.server.store.IdempotencyRow;
import dev.agentauth.server.store.MemoryStore;
import dev.agentauth.server.store.ReceiptRow;
import dev.agentauth.server.store.SigningKeyRow;
import dev.agentauth.server.store.Store;
import dev.agentauth.server.store.Tx;
import dev.agentauth.server.store.WorkspaceRow;
import dev.agentauth.verifier.signing.ReceiptSigner;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Every mutation runs through one place: in one transaction with its idempotency record (replayed
 * byte for byte for 24 hours, 409 {@code idempotency_conflict} for another request, per API key,
 * nothing stored on failure), its receipts handed to the signer after the commit, and with {@code
 * wait=true} an answer that carries the signatures when the signer allows the wait. Run against the
 * memory store with a clock that only moves when told and a signer that signs only when this test
 * sweeps it.
 */
class MutationRunnerTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String WS = "ws_a";
  private static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");
  private static final Caller CALLER =
      new Caller(WS, Plan.Known.PRO, "hash_1", "key_1", ApiKeyRole.AGENT, null, null);
  private static final Caller OTHER_KEY =
      new Caller(WS, Plan.Known.PRO, "hash_2", "key_2", ApiKeyRole.AGENT, null, null);
  private static final SigningService.Limits NO_WAITS =
      new SigningService.Limits(16_384, 64L << 20, 50_000, 5_000, 0, 0);

  private final TestClock clock = new TestClock(T0);
  private final MemoryStore store = new MemoryStore();
  private final AtomicInteger runs = new AtomicInteger();
  private final List<List<ReceiptRow>> committed = new ArrayList<>();
  private SigningService signer;
  private ServiceContext ctx;
  private MutationRunner runner;

  MutationRunnerTest() {
    store.inTransaction(tx -> tx.insertWorkspace(new WorkspaceRow(WS, "pro", T0)));
    useSigner(SigningService.Limits.DEFAULT);
  }

  /** Rebuilds the runner around a signer (never started: it signs only on {@code sweep()}). */
  private void useSigner(SigningService.Limits limits) {
    signer = new SigningService(store, clock, nanos -> {}, limits);
    ctx = new ServiceContext(store, clock, signer, ReceiptQuotas.Limits.UNLIMITED);
    runner =
        new MutationRunner(ctx, new ReceiptOps(ctx, () -> "http://127.0.0.1:1"), committed::add);
  }

  /** The answer of {@link #revoke}: which run made it, and its receipt as shown. */
  record Body(int run, ReceiptRef receipt) {}

  /** An operation that writes one receipt, counting its runs. */
  private Outcome revoke(CheckTx tx) {
    int run = runs.incrementAndGet();
    ReceiptRow row =
        ctx.receipts()
            .eventReceipt(
                WS,
                ctx.now(),
                ReceiptEvent.Known.AUTHORIZATION_REVOKE,
                Decision.Known.AUTHORIZATION_REVOKED,
                Reason.Known.AUTHORIZATION_REVOKED,
                "user_1",
                "agent_1",
                null,
                null,
                "auth_1");
    tx.insertReceipt(row);
    return new Outcome(200, List.of(row), view -> new Body(run, view.apply(row)));
  }

  private static MutationRunner.Request request(Caller caller, String key, String requestHash) {
    return new MutationRunner.Request(caller, key, requestHash, null, false);
  }

  private MutationRunner.Response run(MutationRunner.Request req) {
    CompletableFuture<MutationRunner.Response> answer =
        runner.finish(runner.commit(req, this::revoke), Runnable::run);
    assertThat(answer).as("answered at once").isDone();
    return answer.join();
  }

  private static JsonNode json(MutationRunner.Response r) throws Exception {
    return JSON.readTree(r.body());
  }

  private Optional<IdempotencyRow> record(String apiKeyHash, String key) {
    return store.read((Tx tx) -> tx.idempotency(apiKeyHash, key));
  }

  private List<ReceiptRow> receipts() {
    return store.read((Tx tx) -> tx.pendingReceipts(null, 100));
  }

  @Test
  void theSameKeyAndRequestReplaysTheStoredAnswerByteForByteAndRunsNothing() throws Exception {
    MutationRunner.Response first = run(request(CALLER, "k1", "h1"));
    clock.advance(Duration.ofMinutes(5));
    MutationRunner.Response again = run(request(CALLER, "k1", "h1"));

    assertThat(first.replayed()).isFalse();
    assertThat(again.replayed()).isTrue();
    assertThat(again.status()).isEqualTo(first.status()).isEqualTo(200);
    assertThat(again.body()).isEqualTo(first.body());
    assertThat(json(again).get("run").asInt()).isEqualTo(1);
    assertThat(runs).hasValue(1);
    assertThat(receipts()).hasSize(1);
  }

  @Test
  void theSameKeyWithAnotherRequestIs409IdempotencyConflictAndRunsNothing() {
    run(request(CALLER, "k1", "h1"));

    assertThatThrownBy(() -> run(request(CALLER, "k1", "h2")))
        .isInstanceOfSatisfying(
            ServiceException.class,
            e -> {
              assertThat(e.status()).isEqualTo(409);
              assertThat(e.errorCode()).isEqualTo(ErrorCode.IDEMPOTENCY_CONFLICT);
            });
    assertThat(runs).hasValue(1);
    assertThat(receipts()).hasSize(1);
  }

  @Test
  void keysOfDifferentApiKeysNeverMeet() throws Exception {
    MutationRunner.Response mine = run(request(CALLER, "k1", "h1"));
    MutationRunner.Response theirs = run(request(OTHER_KEY, "k1", "h2"));

    assertThat(theirs.replayed()).isFalse();
    assertThat(json(mine).get("run").asInt()).isEqualTo(1);
    assertThat(json(theirs).get("run").asInt()).isEqualTo(2);
    assertThat(record("hash_1", "k1").orElseThrow().requestHash()).isEqualTo("h1");
    assertThat(record("hash_2", "k1").orElseThrow().requestHash()).isEqualTo("h2");
  }

  @Test
  void theRecordHoldsStatusAndExactBodyForTwentyFourHoursThenTheKeyIsFreeAgain() throws Exception {
    MutationRunner.Response first = run(request(CALLER, "k1", "h1"));
    IdempotencyRow stored = record("hash_1", "k1").orElseThrow();
    clock.advance(Duration.ofHours(24).minusMillis(1));
    MutationRunner.Response lastReplay = run(request(CALLER, "k1", "h1"));
    clock.advance(Duration.ofMillis(1));
    MutationRunner.Response anew = run(request(CALLER, "k1", "h2"));

    assertThat(stored.status()).isEqualTo(200);
    assertThat(stored.body()).isEqualTo(first.body());
    assertThat(stored.createdAt()).isEqualTo(T0);
    assertThat(lastReplay.replayed()).isTrue();
    assertThat(anew.replayed()).isFalse();
    assertThat(json(anew).get("run").asInt()).isEqualTo(2);
    assertThat(record("hash_1", "k1").orElseThrow().requestHash()).isEqualTo("h2");
  }

  @Test
  void aFailedRequestStoresNothingSoItsKeyCanBeRetriedWithACorrectedBody() throws Exception {
    MutationRunner.Request bad = request(CALLER, "k1", "h_bad");
    assertThatThrownBy(
            () ->
                runner.commit(
                    bad,
                    tx -> {
                      revoke(tx);
                      throw ServiceException.invalid("reason", "is too long");
                    }))
        .isInstanceOf(ServiceException.class);

    assertThat(record("hash_1", "k1")).isEmpty();
    assertThat(receipts()).isEmpty();
    MutationRunner.Response fixed = run(request(CALLER, "k1", "h_fixed"));
    assertThat(fixed.replayed()).isFalse();
    assertThat(json(fixed).get("run").asInt()).isEqualTo(2);
  }

  @Test
  void withoutAKeyEveryRequestRunsAnew() throws Exception {
    MutationRunner.Response first = run(request(CALLER, null, null));
    MutationRunner.Response second = run(request(CALLER, null, null));

    assertThat(first.replayed()).isFalse();
    assertThat(second.replayed()).isFalse();
    assertThat(json(second).get("run").asInt()).isEqualTo(2);
    assertThat(receipts()).hasSize(2);
  }

  @Test
  void anIdempotencyKeyMustHave1To255Characters() {
    for (String key : List.of("", "k".repeat(256))) {
      assertThatThrownBy(() -> request(CALLER, key, "h1"))
          .isInstanceOfSatisfying(
              ServiceException.class,
              e -> {
                assertThat(e.status()).isEqualTo(400);
                assertThat(e.errors())
                    .extracting(ServiceException.FieldProblem::field)
                    .containsExactly("Idempotency-Key");
              });
    }
    assertThat(request(CALLER, "k".repeat(255), "h1").idempotencyKey()).hasSize(255);
  }

  @Test
  void committedReceiptsGoToTheSignerAndTheCommitListenerButAReplaysDoNot() {
    run(request(CALLER, "k1", "h1"));
    run(request(CALLER, "k1", "h1"));

    assertThat(committed).hasSize(1);
    assertThat(committed.get(0))
        .extracting(ReceiptRow::event)
        .containsExactly("authorization.revoke");
    assertThat(signer.backlog()).isEqualTo(1);
  }

  @Test
  void theStoredAnswerShowsItsReceiptPendingAndAReplayOfAWaitDoesToo() throws Exception {
    useSigner(NO_WAITS);
    MutationRunner.Request waiting = new MutationRunner.Request(CALLER, "k1", "h1", null, true);

    MutationRunner.Response first = run(waiting);
    MutationRunner.Response replay = run(waiting);

    JsonNode receipt = json(first).get("receipt");
    assertThat(receipt.get("status").asText()).isEqualTo("pending");
    assertThat(receipt.get("receipt_id").asText()).isEqualTo(receipts().get(0).receiptId());
    assertThat(receipt.get("url").asText())
        .isEqualTo("http://127.0.0.1:1/v1/receipts/" + receipts().get(0).receiptId());
    assertThat(replay.body()).isEqualTo(first.body());
  }

  @Test
  void aWaitTheSignerDoesNotAllowIsAnsweredAtOnceWithPendingReceipts() throws Exception {
    useSigner(NO_WAITS);

    MutationRunner.Response r = run(new MutationRunner.Request(CALLER, null, null, null, true));

    assertThat(json(r).get("receipt").get("status").asText()).isEqualTo("pending");
    assertThat(signer.waiting()).isZero();
  }

  @Test
  void aWaitIsAnsweredWithTheSignedReceiptOnceTheSignerSignsIt() throws Exception {
    ReceiptSigner key = ReceiptSigner.fromSeed("ws_a/k1", new byte[32]);
    store.inTransaction(
        tx -> {
          tx.insertSigningKey(
              new SigningKeyRow(
                  WS, key.keyId(), new byte[32], key.publicKey(), T0.minusSeconds(60), null));
          return null;
        });
    MutationRunner.Request waiting = new MutationRunner.Request(CALLER, null, null, null, true);

    CompletableFuture<MutationRunner.Response> answer =
        runner.finish(runner.commit(waiting, this::revoke), Runnable::run);
    assertThat(answer).as("waiting for the signature").isNotDone();
    assertThat(signer.waiting()).isEqualTo(1);
    clock.advance(Duration.ofSeconds(6)); // the sweep signs receipts pending over 5 s
    signer.sweep();

    assertThat(answer).isDone();
    JsonNode receipt = json(answer.join()).get("receipt");
    assertThat(receipt.get("receipt_id").asText()).isEqualTo(committed.get(0).get(0).receiptId());
    assertThat(receipt.get("signature").get("key_id").asText()).isEqualTo("ws_a/k1");
    assertThat(signer.waiting()).isZero();
  }

  @Test
  void aCheckWithoutAKeyRunsGroupedAndWithAKeyIsReplayedLikeAnyMutation() throws Exception {
    Store.GroupKey group = new Store.GroupKey(WS, "auth_1", "doc:1");

    MutationRunner.Request grouped =
        new MutationRunner.Request(CALLER, null, null, null, false).withGroup(group);
    MutationRunner.Request keyed =
        new MutationRunner.Request(CALLER, "k1", "h1", null, false).withGroup(group);
    MutationRunner.Response g1 =
        runner.finish(runner.commitCheck(grouped, this::revoke), Runnable::run).join();
    MutationRunner.Response g2 =
        runner.finish(runner.commitCheck(grouped, this::revoke), Runnable::run).join();
    MutationRunner.Response k1 =
        runner.finish(runner.commitCheck(keyed, this::revoke), Runnable::run).join();
    MutationRunner.Response k2 =
        runner.finish(runner.commitCheck(keyed, this::revoke), Runnable::run).join();

    assertThat(List.of(g1.replayed(), g2.replayed(), k1.replayed(), k2.replayed()))
        .containsExactly(false, false, false, true);
    assertThat(k2.body()).isEqualTo(k1.body());
    assertThat(runs).hasValue(3);
    assertThat(receipts()).hasSize(3);
  }
}
