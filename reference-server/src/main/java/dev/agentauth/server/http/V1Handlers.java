package dev.agentauth.server.http;

import dev.agentauth.model.ApiKey;
import dev.agentauth.model.BundleRequest;
import dev.agentauth.model.CheckRequest;
import dev.agentauth.model.ConfirmationRequest;
import dev.agentauth.model.CreateApiKeyRequest;
import dev.agentauth.model.CreateAuthorizationRequest;
import dev.agentauth.model.EscalationResolveRequest;
import dev.agentauth.model.RevokeAuthorizationRequest;
import dev.agentauth.model.TombstoneRequest;
import dev.agentauth.server.engine.CheckInput;
import dev.agentauth.server.service.ApiKeyOps;
import dev.agentauth.server.service.AuthorizationOps;
import dev.agentauth.server.service.BundleOps;
import dev.agentauth.server.service.Caller;
import dev.agentauth.server.service.CheckOps;
import dev.agentauth.server.service.ConfirmationOps;
import dev.agentauth.server.service.EscalationOps;
import dev.agentauth.server.service.MutationRunner;
import dev.agentauth.server.service.Outcome;
import dev.agentauth.server.service.ReceiptOps;
import dev.agentauth.server.service.ServiceContext;
import dev.agentauth.server.service.ServiceException;
import dev.agentauth.server.service.TombstoneOps;
import dev.agentauth.server.service.WorkspaceOps;
import dev.agentauth.server.store.ReceiptFilter;
import dev.agentauth.server.store.Store;
import dev.agentauth.server.store.Tx;
import io.javalin.http.Context;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The {@code /v1} endpoints. Each handler parses its request, calls one service operation — reads
 * through the per-workspace read limiter, writes through the {@link MutationRunner} — and renders
 * the outcome; none decides anything itself.
 */
record V1Handlers(
    ServiceContext ctx,
    RequestReader reader,
    ResponseWriter writer,
    MutationRunner runner,
    WorkspaceLimiter readLimiter,
    ReceiptGate gate,
    Executor answers,
    WorkspaceOps workspaces,
    ApiKeyOps apiKeys,
    AuthorizationOps authorizations,
    CheckOps checks,
    ConfirmationOps confirmations,
    EscalationOps escalations,
    BundleOps bundles,
    TombstoneOps tombstones,
    ReceiptOps receipts) {

  /** An empty JSON object body (DELETE without a body). */
  record EmptyBody() {}

  /**
   * The handlers over {@code ctx}. Reads in flight per workspace: 3, so that one workspace leaves
   * SQLite's 4 readers one; 32 more may wait up to 1 s, so that one workspace parks at most 35 of
   * the 250 request threads. Checks and new authorizations run through {@code gate} (parsing,
   * deciding and committing; not waiting for signatures, which the signer bounds and which holds no
   * thread); answers made after a wait are written on {@code answers}.
   */
  static V1Handlers create(
      ServiceContext ctx,
      RequestReader reader,
      ResponseWriter writer,
      MutationRunner runner,
      WorkspaceOps workspaces,
      ApiKeyOps apiKeys,
      ReceiptOps receipts,
      ReceiptGate gate,
      Executor answers) {
    return new V1Handlers(
        ctx,
        reader,
        writer,
        runner,
        new WorkspaceLimiter(3, Duration.ofSeconds(1)),
        gate,
        answers,
        workspaces,
        apiKeys,
        new AuthorizationOps(ctx),
        new CheckOps(ctx),
        new ConfirmationOps(ctx),
        new EscalationOps(ctx),
        new BundleOps(ctx),
        new TombstoneOps(ctx),
        receipts);
  }

  // ---- how reads and writes run

  /** A read-only operation in one read transaction, within the workspace's read limit. */
  private void read(Context c, Caller caller, Function<Tx, Outcome> op) {
    writer.outcome(c, readLimiter.run(caller.workspaceId(), () -> ctx.store().read(op::apply)));
  }

  /** A mutation that may not be grouped. */
  private void mutate(Context c, Caller caller, Function<Tx, Outcome> op) {
    answer(c, runner.finish(runner.commit(RequestReader.mutation(c, caller, null), op), answers));
  }

  /**
   * Sends a mutation's answer: now when it is made, else once it is (a {@code wait=true} wait for
   * signatures), with the request suspended meanwhile so that it holds no request thread.
   */
  private void answer(Context c, CompletableFuture<MutationRunner.Response> response) {
    if (response.isDone()) {
      writer.mutation(c, now(response));
    } else {
      c.future(() -> written(c, response));
    }
  }

  /**
   * A future completed on {@code answers} once {@code response}'s answer is written, or with what
   * failed (as a {@link CompletionException}, which Javalin unwraps and hands to the exception
   * handlers, as for a failure of an inline handler). Either way the rest of the request (its
   * problem, if any) is done on {@code answers}, not on the thread that completed {@code response}.
   */
  private CompletableFuture<Void> written(
      Context c, CompletableFuture<MutationRunner.Response> response) {
    return response.handleAsync(
        (r, failure) -> {
          if (failure != null) {
            throw failure instanceof CompletionException e ? e : new CompletionException(failure);
          }
          writer.mutation(c, r);
          return null;
        },
        answers);
  }

  /** The value of a done future, or what it failed with, thrown as it was. */
  private static <T> T now(CompletableFuture<T> done) {
    try {
      return done.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error err) {
        throw err;
      }
      throw e;
    }
  }

  /**
   * Refuses work that would store receipts while the workspace has used its receipt quota of the
   * day (429) or signing is too far behind (503), before the body is parsed. A refused request's
   * body (at most 1 MiB, checked at the start) is read first: a client still sending it when the
   * answer and its connection's end come would see a reset instead of the answer.
   */
  private void admitReceipts(Context c, Caller caller) {
    try {
      ctx.quotas().admit(caller);
      ctx.signer().admit(caller.workspaceId());
    } catch (RuntimeException refused) {
      try {
        RequestReader.body(c);
      } catch (RuntimeException unreadable) {
        // The refusal is the answer either way.
      }
      throw refused;
    }
  }

  // ---- authorizations

  /**
   * Runs {@code commit} — parsing, validating and committing a request that makes receipts —
   * through the {@link ReceiptGate}, then answers outside it (a {@code wait=true} wait for
   * signatures is bounded by the signer and holds no thread). The body has arrived before, on the
   * request thread: its arrival is bounded by the body deadline and the bodies arriving per
   * workspace, so a queued work never waits for a client. When a permit is free the work runs here
   * at once; otherwise the request is suspended, holding no request thread, until its work has run
   * on the gate's executor. A queued work checks the workspace's quota and the signer's admission
   * again when it runs: they may have changed while it waited.
   */
  private void receiptWork(
      Context c,
      Caller caller,
      BiFunction<byte[], MutationRunner.Request, MutationRunner.Commit> commit) {
    admitReceipts(c, caller);
    // Everything the work needs from the request is taken here, on the request thread: a queued
    // work runs on another thread and does not touch the request.
    byte[] body = RequestReader.body(c);
    MutationRunner.Request req = RequestReader.mutation(c, caller, null);
    Thread requestThread = Thread.currentThread();
    CompletableFuture<MutationRunner.Commit> done =
        gate.run(
            caller.workspaceId(),
            body.length,
            () -> {
              if (Thread.currentThread() != requestThread) {
                ctx.quotas().admit(caller);
                ctx.signer().admit(caller.workspaceId());
              }
              return commit.apply(body, req);
            });
    if (done.isDone()) {
      answer(c, runner.finish(now(done), answers));
    } else {
      c.future(() -> written(c, done.thenCompose(d -> runner.finish(d, answers))));
    }
  }

  void createAuthorization(Context c, Caller caller) {
    receiptWork(
        c,
        caller,
        (body, req) -> {
          RequestBody<CreateAuthorizationRequest> b =
              reader.parse(body, CreateAuthorizationRequest.class, false);
          AuthorizationOps.validate(b.value(), b.object("metadata"));
          var metadata = b.object("metadata") == null ? null : b.object("metadata").deepCopy();
          return runner.commit(req, tx -> authorizations.create(tx, caller, b.value(), metadata));
        });
  }

  void listAuthorizations(Context c, Caller caller) {
    String userId = c.queryParam("user_id");
    String agentId = c.queryParam("agent_id");
    String status = c.queryParam("status");
    String cursor = c.queryParam("cursor");
    int limit = RequestReader.limit(c);
    read(c, caller, tx -> authorizations.list(tx, caller, userId, agentId, status, cursor, limit));
  }

  void getAuthorization(Context c, Caller caller) {
    String id = c.pathParam("id");
    read(c, caller, tx -> authorizations.get(tx, caller, id));
  }

  void revokeAuthorization(Context c, Caller caller) {
    RevokeAuthorizationRequest r = reader.parse(c, RevokeAuthorizationRequest.class, true).value();
    AuthorizationOps.validate(r);
    String id = c.pathParam("id");
    mutate(c, caller, tx -> authorizations.revoke(tx, caller, id, r.revokedBy(), r.notes()));
  }

  // ---- checks and confirmations

  void check(Context c, Caller caller) {
    receiptWork(
        c,
        caller,
        (body, req) -> {
          RequestBody<CheckRequest> b = reader.parse(body, CheckRequest.class, false);
          CheckRequest r = b.value();
          CheckInput in =
              CheckOps.validate(
                  r.authorizationId(),
                  r.scopes(),
                  r.resource(),
                  r.sessionId(),
                  r.estimatedCostMicros(),
                  b.object("context") == null ? null : b.object("context").deepCopy());
          // A check locks only its authorization, so without an Idempotency-Key it may be grouped.
          Store.GroupKey group =
              new Store.GroupKey(caller.workspaceId(), in.authorizationId(), in.resource());
          return runner.commitCheck(req.withGroup(group), tx -> checks.check(tx, caller, in));
        });
  }

  void confirm(Context c, Caller caller) {
    ConfirmationRequest r = reader.value(c, ConfirmationRequest.class);
    var via = ConfirmationOps.validate(r.approved(), r.ttlSeconds(), r.via());
    String nonce = c.pathParam("nonce");
    mutate(
        c,
        caller,
        tx -> confirmations.resolve(tx, caller, nonce, r.approved(), r.ttlSeconds(), via));
  }

  // ---- escalations

  void resolveEscalation(Context c, Caller caller) {
    EscalationResolveRequest r = reader.value(c, EscalationResolveRequest.class);
    String resolution = r.resolution() == null ? null : r.resolution().value();
    String resolvedBy = EscalationOps.validate(caller, resolution, r.resolvedBy(), r.note());
    String id = c.pathParam("id");
    mutate(c, caller, tx -> escalations.resolve(tx, caller, id, resolution, resolvedBy, r.note()));
  }

  void listEscalations(Context c, Caller caller) {
    String status = c.queryParam("status");
    String cursor = c.queryParam("cursor");
    int limit = RequestReader.limit(c);
    read(c, caller, tx -> escalations.list(tx, caller, status, cursor, limit));
  }

  void getEscalation(Context c, Caller caller) {
    String id = c.pathParam("id");
    read(c, caller, tx -> escalations.get(tx, caller, id));
  }

  // ---- bundles

  void createBundle(Context c, Caller caller) {
    BundleRequest r = reader.value(c, BundleRequest.class);
    BundleOps.validate(r, null);
    mutate(c, caller, tx -> bundles.create(tx, caller, r));
  }

  void listBundles(Context c, Caller caller) {
    String cursor = c.queryParam("cursor");
    int limit = RequestReader.limit(c);
    read(c, caller, tx -> bundles.list(tx, caller, cursor, limit));
  }

  void getBundle(Context c, Caller caller) {
    String id = c.pathParam("id");
    read(c, caller, tx -> bundles.get(tx, caller, id));
  }

  void editBundle(Context c, Caller caller) {
    BundleRequest r = reader.value(c, BundleRequest.class);
    String id = c.pathParam("id");
    BundleOps.validate(r, id);
    mutate(c, caller, tx -> bundles.edit(tx, caller, id, r));
  }

  void deleteBundle(Context c, Caller caller) {
    reader.parse(c, EmptyBody.class, true);
    String id = c.pathParam("id");
    mutate(c, caller, tx -> bundles.delete(tx, caller, id));
  }

  // ---- tombstones

  void createTombstone(Context c, Caller caller) {
    TombstoneRequest r = reader.value(c, TombstoneRequest.class);
    TombstoneOps.validate(r.resource(), r.resourcePattern(), r.reason());
    mutate(
        c,
        caller,
        tx -> tombstones.create(tx, caller, r.resource(), r.resourcePattern(), r.reason()));
  }

  void listTombstones(Context c, Caller caller) {
    String cursor = c.queryParam("cursor");
    int limit = RequestReader.limit(c);
    read(c, caller, tx -> tombstones.list(tx, caller, cursor, limit));
  }

  // ---- receipts and keys

  void listReceipts(Context c, Caller caller) {
    ReceiptFilter filter = ReceiptOps.filter(c::queryParam);
    String cursor = c.queryParam("cursor");
    int limit = RequestReader.limit(c);
    read(c, caller, tx -> receipts.list(tx, caller, filter, cursor, limit));
  }

  void getReceipt(Context c, Caller caller) {
    String id = c.pathParam("id");
    read(c, caller, tx -> receipts.get(tx, caller, id));
  }

  void workspaceKeys(Context c, Caller none) {
    String id = c.pathParam("id");
    writer.outcome(c, Outcome.of(200, ctx.store().read(tx -> workspaces.keys(tx, id))));
  }

  // ---- API keys

  void createApiKey(Context c, Caller caller) {
    createApiKey(c, ctx, reader, writer, apiKeys, caller.workspaceId());
  }

  /**
   * Creates a key in {@code workspaceId} and answers 201 with its secret, marked not to be stored
   * by caches. An Idempotency-Key is refused: replaying the answer would mean keeping the secret.
   */
  static void createApiKey(
      Context c,
      ServiceContext ctx,
      RequestReader reader,
      ResponseWriter writer,
      ApiKeyOps apiKeys,
      String workspaceId) {
    if (c.header("Idempotency-Key") != null) {
      throw ServiceException.invalid(
          "Idempotency-Key",
          "is not accepted when creating an API key: a replay would need the secret, which is"
              + " never stored; after a failed attempt, list the keys and revoke any stray one");
    }
    CreateApiKeyRequest r = reader.parse(c, CreateApiKeyRequest.class, true).value();
    ApiKeyOps.validate(r, ctx.now());
    ApiKey created = ctx.store().inTransaction(tx -> apiKeys.create(tx, workspaceId, r));
    c.header("Cache-Control", "no-store");
    writer.outcome(c, Outcome.of(201, created));
  }

  void listApiKeys(Context c, Caller caller) {
    String cursor = c.queryParam("cursor");
    int limit = RequestReader.limit(c);
    read(c, caller, tx -> Outcome.of(200, apiKeys.list(tx, caller.workspaceId(), cursor, limit)));
  }

  void currentApiKey(Context c, Caller caller) {
    read(c, caller, tx -> Outcome.of(200, apiKeys.current(tx, caller)));
  }

  void revokeApiKey(Context c, Caller caller) {
    reader.parse(c, EmptyBody.class, true);
    String keyId = c.pathParam("key_id");
    writer.outcome(c, Outcome.of(200, apiKeys.revoke(caller.workspaceId(), keyId)));
  }
}
