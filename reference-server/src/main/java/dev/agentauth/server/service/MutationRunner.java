package dev.agentauth.server.service;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.agentauth.model.ReceiptRef;
import dev.agentauth.server.store.CheckTx;
import dev.agentauth.server.store.IdempotencyRow;
import dev.agentauth.server.store.ReceiptRow;
import dev.agentauth.server.store.Store;
import dev.agentauth.server.store.Tx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Runs every mutating operation the same way: in one store transaction together with its
 * idempotency record (replayed when the key was seen with the same request, 409 when with another),
 * or — for a check without an Idempotency-Key — as a grouped transaction the store may commit with
 * others. After the commit it hands the operation's receipts to the signer and, when asked to wait
 * and the signer allows it, waits up to 5 s for their signatures, without holding a thread while it
 * waits. The response body is rendered here, outside the transaction unless it must be stored with
 * the idempotency record.
 */
public final class MutationRunner {
  private static final Duration WAIT = Duration.ofSeconds(5);
  private static final Duration IDEMPOTENCY_TTL = Duration.ofHours(24);

  /**
   * One mutation request.
   *
   * @param idempotencyKey the client's Idempotency-Key, or null
   * @param requestHash what identifies the request for the key (method, path, query, body); null
   *     without a key
   * @param group the authorization a grouped operation locks, or null when it may not be grouped
   * @param waitForSignatures whether the response should carry signed receipts ({@code wait=true})
   */
  public record Request(
      Caller caller,
      String idempotencyKey,
      String requestHash,
      Store.GroupKey group,
      boolean waitForSignatures) {

    public Request {
      if (idempotencyKey != null && (idempotencyKey.isEmpty() || idempotencyKey.length() > 255)) {
        throw ServiceException.invalid("Idempotency-Key", "must be 1 to 255 characters");
      }
    }

    /** This request, grouped on {@code group} (null: not grouped). */
    public Request withGroup(Store.GroupKey group) {
      return new Request(caller, idempotencyKey, requestHash, group, waitForSignatures);
    }
  }

  /** What to answer: a status and JSON body; {@code replayed} when it is a stored answer. */
  public record Response(int status, byte[] body, boolean replayed) {}

  private record Committed(int status, byte[] body, boolean replayed, Outcome outcome) {}

  private final ServiceContext ctx;
  private final ReceiptOps receipts;
  private final Consumer<List<ReceiptRow>> onCommit;

  /**
   * @param onCommit told of the receipts of every committed (not replayed) mutation, e.g. to count
   *     decisions
   */
  public MutationRunner(
      ServiceContext ctx, ReceiptOps receipts, Consumer<List<ReceiptRow>> onCommit) {
    this.ctx = ctx;
    this.receipts = receipts;
    this.onCommit = onCommit;
  }

  /**
   * A committed mutation whose answer is not made yet: {@link #finish} hands its receipts to the
   * signer and, for {@code wait=true}, waits for their signatures. Split so that a caller can bound
   * the store work without counting the waits for signatures.
   */
  public static final class Commit {
    private final Request req;
    private final Committed committed;

    private Commit(Request req, Committed committed) {
      this.req = req;
      this.committed = committed;
    }
  }

  /**
   * Runs {@code op} for {@code req} in one transaction (with its idempotency record); {@link
   * #finish} makes the answer.
   */
  public Commit commit(Request req, Function<Tx, Outcome> op) {
    return new Commit(req, ctx.store().inTransaction(tx -> runInTransaction(tx, req, op)));
  }

  /**
   * Runs a check: without an Idempotency-Key as grouped work on the request's group (the store may
   * commit it together with other checks), else like {@link #commit}; {@link #finish} makes the
   * answer.
   */
  public Commit commitCheck(Request req, Function<CheckTx, Outcome> op) {
    if (req.idempotencyKey() != null || req.group() == null) {
      return commit(req, op::apply);
    }
    Committed committed =
        ctx.store()
            .inGroupedTransaction(
                req.group(),
                tx -> {
                  Outcome o = op.apply(tx);
                  return new Committed(o.status(), null, false, o);
                });
    return new Commit(req, committed);
  }

  /**
   * The answer to a committed mutation (see {@link Commit}): done at once, unless the request waits
   * for its receipts' signatures; then it is completed on {@code answers} once they are signed or
   * the wait ends, and no thread waits meanwhile.
   */
  public CompletableFuture<Response> finish(Commit commit, Executor answers) {
    return finish(commit.committed, commit.req, answers);
  }

  private Committed runInTransaction(Tx tx, Request req, Function<Tx, Outcome> op) {
    String key = req.idempotencyKey();
    String keyHash = req.caller().apiKeyHash();
    if (key != null) {
      // A concurrent request with this key (in any instance) waits for this one and then replays
      // its record.
      tx.lock("idempotency/" + keyHash + "/" + key);
      Optional<IdempotencyRow> prior = tx.idempotency(keyHash, key);
      if (prior.isPresent() && prior.get().createdAt().isAfter(ctx.now().minus(IDEMPOTENCY_TTL))) {
        if (!prior.get().requestHash().equals(req.requestHash())) {
          throw ServiceException.of(
              ErrorCode.IDEMPOTENCY_CONFLICT,
              "this Idempotency-Key was used with a different request");
        }
        return new Committed(prior.get().status(), prior.get().body(), true, null);
      }
    }
    Outcome o = op.apply(tx);
    if (key == null) {
      // Rendered after the commit: the transaction holds locks (or the writer).
      return new Committed(o.status(), null, false, o);
    }
    byte[] bytes = render(o, receipts::pending);
    tx.insertIdempotency(
        new IdempotencyRow(
            keyHash, key, req.requestHash(), o.status(), "application/json", bytes, ctx.now()));
    return new Committed(o.status(), bytes, false, o);
  }

  /**
   * Hands a committed mutation's receipts to the signer and renders its answer. When asked to wait,
   * it waits only if the signer allows ({@link
   * dev.agentauth.server.signing.SigningService#tryBeginWait}: waiting requests are bounded per
   * workspace and in all, and receipts not expected to be signed in time are not waited for);
   * otherwise, like a wait that timed out, it answers at once with the receipts pending.
   */
  /**
   * Hands a committed mutation's receipts to the signer and renders its answer. When asked to wait,
   * it waits only if the signer allows ({@link
   * dev.agentauth.server.signing.SigningService#tryBeginWait}: waiting requests are bounded per
   * workspace and in all, and receipts not expected to be signed in time are not waited for);
   * otherwise, like a wait that timed out, it answers at once with the receipts pending.
   */
  private CompletableFuture<Response> finish(Committed committed, Request req, Executor answers) {
    if (committed.replayed()) {
      return CompletableFuture.completedFuture(
          new Response(committed.status(), committed.body(), true));
    }
    Outcome o = committed.outcome();
    ctx.quotas().record(o.receipts());
    onCommit.accept(o.receipts());
    boolean wait = req.waitForSignatures() && !o.receipts().isEmpty();
    List<CompletableFuture<String>> waits = new ArrayList<>();
    if (wait) {
      for (ReceiptRow row : o.receipts()) {
        waits.add(ctx.signer().whenSigned(row.receiptId()));
      }
    }
    ctx.signer().submit(o.receipts());
    String workspaceId = req.caller().workspaceId();
    if (wait && !ctx.signer().tryBeginWait(workspaceId, o.receipts().size(), WAIT)) {
      o.receipts().forEach(row -> ctx.signer().forget(row.receiptId()));
      wait = false;
    }
    if (!wait) {
      byte[] body = committed.body() != null ? committed.body() : render(o, receipts::pending);
      return CompletableFuture.completedFuture(new Response(o.status(), body, false));
    }
    // The signer completes the waits on its own threads and the timeout fires on the JDK's delay
    // thread: the answer is made on the answers' executor, so that neither does that work.
    return CompletableFuture.allOf(waits.toArray(new CompletableFuture<?>[0]))
        .orTimeout(WAIT.toNanos(), TimeUnit.NANOSECONDS)
        .handleAsync(
            (ignored, failure) -> {
              Map<String, String> signed;
              try {
                signed = signedSoFar(o.receipts(), waits);
              } finally {
                ctx.signer().endWait(workspaceId);
              }
              return new Response(
                  o.status(), render(o, row -> signedOrPending(row, signed)), false);
            },
            answers);
  }

  /** The JSON body of {@code o}, its receipts shown through {@code view}. */
  public byte[] render(Outcome o, Outcome.ReceiptView view) {
    try {
      return ctx.mapper().writeValueAsBytes(o.body().apply(view));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("response not serializable", e);
    }
  }

  /** The JSON body of a read's outcome (its receipts, if any, shown as pending). */
  public byte[] render(Outcome o) {
    return render(o, receipts::pending);
  }

  private ReceiptRef signedOrPending(ReceiptRow row, Map<String, String> signed) {
    String json = signed.get(row.receiptId());
    return json == null ? receipts.pending(row) : receipts.signed(json);
  }

  /**
   * The signed texts of those of {@code rows} signed by now; the signer forgets the waits of the
   * others.
   */
  private Map<String, String> signedSoFar(
      List<ReceiptRow> rows, List<CompletableFuture<String>> waits) {
    Map<String, String> out = new LinkedHashMap<>();
    for (int i = 0; i < rows.size(); i++) {
      String id = rows.get(i).receiptId();
      CompletableFuture<String> w = waits.get(i);
      if (w.isDone() && !w.isCompletedExceptionally()) {
        out.put(id, w.join());
      } else {
        ctx.signer().forget(id);
      }
    }
    return out;
  }
}
