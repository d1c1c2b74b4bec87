package dev.agentauth.server.http;

import dev.agentauth.server.log.LogOps;
import dev.agentauth.server.log.Witnesses;
import dev.agentauth.server.service.Caller;
import dev.agentauth.server.service.ErrorCode;
import dev.agentauth.server.service.Outcome;
import dev.agentauth.server.service.ServiceContext;
import dev.agentauth.server.service.ServiceException;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The receipt log's endpoints (decisions.md §18): the public checkpoint and cosignature intake of a
 * workspace, and the API key reads {@code /v1/log/…}. Reads run in one read transaction within the
 * per-workspace read limit.
 */
record LogHandlers(
    ServiceContext ctx,
    RequestReader reader,
    ResponseWriter writer,
    WorkspaceLimiter readLimiter,
    RateLimiter cosignatureLimiter,
    LogOps log,
    Witnesses witnesses) {

  /** The largest cosignature body accepted: a checkpoint note and up to 16 signature lines. */
  static final int MAX_COSIGNATURE_BODY = 16 * 1024;

  private static final String PUBLIC_BODIES = "log cosignatures";

  void checkpoint(Context c, Caller none) {
    String id = c.pathParam("id");
    Long treeSize = LogOps.longParam("tree_size", c.queryParam("tree_size"), 1);
    Long cosigned = LogOps.longParam("cosigned", c.queryParam("cosigned"), 1);
    if (cosigned != null && cosigned > Witnesses.MAX) {
      throw ServiceException.invalid(
          "cosigned", "must be at most " + Witnesses.MAX + " (the most witnesses a log has)");
    }
    if (treeSize != null && cosigned != null) {
      throw ServiceException.invalid("cosigned", "cannot be combined with tree_size");
    }
    Integer k = cosigned == null ? null : cosigned.intValue();
    String text =
        readLimiter.run(id, () -> ctx.store().read(tx -> log.checkpoint(tx, id, treeSize, k)));
    text(c, text);
  }

  void cosign(Context c, Caller none) {
    String id = c.pathParam("id");
    // A body over the limit (but within the server's own body limit) is read, then refused with
    // the connection kept: closing on a body the client is still sending can reset the connection
    // before the client reads the answer.
    if (!cosignatureLimiter.tryAcquire(id)) {
      c.header("Connection", "close");
      throw ServiceException.rateLimited(1);
    }
    reader.receive(c, PUBLIC_BODIES);
    byte[] body = RequestReader.body(c);
    if (body.length > MAX_COSIGNATURE_BODY) {
      throw ServiceException.of(
          ErrorCode.PAYLOAD_TOO_LARGE,
          "a cosignature body is at most " + MAX_COSIGNATURE_BODY + " bytes");
    }
    writer.outcome(c, Outcome.of(200, witnesses.accept(id, body)));
  }

  void witnesses(Context c, Caller caller) {
    writer.outcome(
        c,
        Outcome.of(
            200,
            readLimiter.run(
                caller.workspaceId(),
                () -> ctx.store().read(tx -> witnesses.list(tx, caller.workspaceId())))));
  }

  void setWitnesses(Context c, Caller caller) {
    Witnesses.Request r = reader.value(c, Witnesses.Request.class);
    java.util.List<String> vkeys = witnesses.validate(r);
    writer.outcome(
        c,
        Outcome.of(
            200, ctx.store().inTransaction(tx -> witnesses.set(tx, caller.workspaceId(), vkeys))));
  }

  void entries(Context c, Caller caller) {
    Long start = LogOps.longParam("start", c.queryParam("start"), 0);
    Long limit = LogOps.longParam("limit", c.queryParam("limit"), 1);
    if (limit != null && limit > LogOps.MAX_ENTRIES) {
      throw ServiceException.invalid(
          "limit", "must be an integer from 1 to " + LogOps.MAX_ENTRIES + ", got " + limit);
    }
    long from = start == null ? 0 : start;
    int n = limit == null ? 100 : limit.intValue();
    writer.outcome(
        c,
        Outcome.of(
            200,
            readLimiter.run(
                caller.workspaceId(),
                () -> ctx.store().read(tx -> log.entries(tx, caller.workspaceId(), from, n)))));
  }

  void inclusion(Context c, Caller caller) {
    String receiptId = c.queryParam("receipt_id");
    if (receiptId == null || receiptId.isEmpty()) {
      throw ServiceException.invalid("receipt_id", "is required");
    }
    Long treeSize = LogOps.longParam("tree_size", c.queryParam("tree_size"), 1);
    writer.outcome(
        c,
        Outcome.of(
            200,
            readLimiter.run(
                caller.workspaceId(),
                () ->
                    ctx.store()
                        .read(
                            tx -> log.inclusion(tx, caller.workspaceId(), receiptId, treeSize)))));
  }

  void consistency(Context c, Caller caller) {
    Long from = LogOps.longParam("from", c.queryParam("from"), 1);
    Long to = LogOps.longParam("to", c.queryParam("to"), 1);
    if (from == null) {
      throw ServiceException.invalid("from", "is required");
    }
    if (to == null) {
      throw ServiceException.invalid("to", "is required");
    }
    writer.outcome(
        c,
        Outcome.of(
            200,
            readLimiter.run(
                caller.workspaceId(),
                () ->
                    ctx.store().read(tx -> log.consistency(tx, caller.workspaceId(), from, to)))));
  }

  private static void text(Context c, String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    c.status(200).contentType("text/plain; charset=utf-8");
    c.res().setContentLength(bytes.length);
    try {
      c.res().getOutputStream().write(bytes);
    } catch (IOException e) {
      throw new UncheckedIOException("client went away", e);
    }
  }
}
