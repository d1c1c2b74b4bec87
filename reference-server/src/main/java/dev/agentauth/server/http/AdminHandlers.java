package dev.agentauth.server.http;

import dev.agentauth.model.ClockRequest;
import dev.agentauth.model.ClockResponse;
import dev.agentauth.model.CreateWorkspaceRequest;
import dev.agentauth.server.service.ApiKeyOps;
import dev.agentauth.server.service.Caller;
import dev.agentauth.server.service.ClockControl;
import dev.agentauth.server.service.ErrorCode;
import dev.agentauth.server.service.Outcome;
import dev.agentauth.server.service.ServiceContext;
import dev.agentauth.server.service.ServiceException;
import dev.agentauth.server.service.WorkspaceOps;
import io.javalin.http.Context;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;

/**
 * The operator's endpoints under {@code /admin/v1}, called with the admin token: workspaces, their
 * API keys (create, list, revoke) and signing-key rotation, and the test clock.
 */
record AdminHandlers(
    ServiceContext ctx,
    RequestReader reader,
    ResponseWriter writer,
    WorkspaceOps workspaces,
    ApiKeyOps apiKeys,
    ClockControl testClock) {

  void createWorkspace(Context c, Caller none) {
    CreateWorkspaceRequest r = reader.value(c, CreateWorkspaceRequest.class);
    WorkspaceOps.validateWorkspace(r.workspaceId(), r.plan());
    String plan = r.plan() == null ? "free" : r.plan().value();
    var created =
        ctx.store().inTransaction(tx -> workspaces.createWorkspace(tx, r.workspaceId(), plan));
    writer.outcome(c, Outcome.of(201, created));
  }

  void createApiKey(Context c, Caller none) {
    V1Handlers.createApiKey(c, ctx, reader, writer, apiKeys, c.pathParam("id"));
  }

  void listApiKeys(Context c, Caller none) {
    String id = c.pathParam("id");
    String cursor = c.queryParam("cursor");
    int limit = RequestReader.limit(c);
    var page = ctx.store().read(tx -> apiKeys.list(tx, id, cursor, limit));
    writer.outcome(c, Outcome.of(200, page));
  }

  void revokeApiKey(Context c, Caller none) {
    reader.parse(c, V1Handlers.EmptyBody.class, true);
    var key = apiKeys.revoke(c.pathParam("id"), c.pathParam("key_id"));
    writer.outcome(c, Outcome.of(200, key));
  }

  void rotate(Context c, Caller none) {
    String id = c.pathParam("id");
    var key = ctx.store().inTransaction(tx -> workspaces.rotate(tx, id));
    writer.outcome(c, Outcome.of(201, key));
  }

  void clock(Context c, Caller none) {
    ClockControl clock = testClock;
    if (clock == null) {
      throw ServiceException.of(
          ErrorCode.NOT_FOUND, "the test clock is off; start the server with --test-clock");
    }
    ClockRequest r = reader.value(c, ClockRequest.class);
    if ((r.advanceSeconds() == null) == (r.set() == null)) {
      throw ServiceException.invalid("body", "send exactly one of advance_seconds and set");
    }
    Instant now;
    try {
      if (r.advanceSeconds() != null) {
        if (r.advanceSeconds() < 0) {
          throw ServiceException.invalid(
              "advance_seconds", "must not be negative: the clock only moves forward");
        }
        now = clock.advance(Duration.ofSeconds(r.advanceSeconds()));
      } else {
        now = clock.set(r.set());
      }
    } catch (IllegalArgumentException e) {
      throw ServiceException.invalid(r.set() != null ? "set" : "advance_seconds", e.getMessage());
    } catch (ArithmeticException | DateTimeException e) {
      throw ServiceException.invalid("advance_seconds", "is too large");
    }
    writer.outcome(c, Outcome.of(200, new ClockResponse(now)));
  }
}
