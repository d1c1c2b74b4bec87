package dev.agentauth.server.service;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.model.ApiKeyRole;
import dev.agentauth.model.Decision;
import dev.agentauth.model.EscalationPage;
import dev.agentauth.model.EscalationResolveResponse;
import dev.agentauth.model.EscalationStatus;
import dev.agentauth.model.Reason;
import dev.agentauth.model.ReceiptEvent;
import dev.agentauth.server.domain.AuthorizationRow;
import dev.agentauth.server.domain.EscalationRow;
import dev.agentauth.server.engine.DecisionEngine;
import dev.agentauth.server.store.EscalationFilter;
import dev.agentauth.server.store.Page;
import dev.agentauth.server.store.PageRequest;
import dev.agentauth.server.store.ReceiptRow;
import dev.agentauth.server.store.Tx;
import java.time.Instant;
import java.util.List;
import java.util.Set;

/** Escalations: resolve (Pro+), get and list. */
public final class EscalationOps {
  private final ServiceContext ctx;

  public EscalationOps(ServiceContext ctx) {
    this.ctx = ctx;
  }

  /**
   * Validates a resolution request of {@code caller}: 402 without the pro plan; for an {@code
   * approver} key, {@code resolved_by} must be absent or its {@code approver_id} (403 otherwise);
   * then the fields.
   *
   * @return the {@code resolved_by} to record: the request's, or an approver key's own id
   */
  public static String validate(Caller caller, String resolution, String resolvedBy, String note) {
    if (!caller.isPro()) {
      throw ServiceException.of(
          ErrorCode.PLAN_REQUIRED, "escalation resolution needs the pro plan");
    }
    String effective = resolvedBy;
    if (caller.knownRole().orElse(null) == ApiKeyRole.Known.APPROVER) {
      if (resolvedBy == null) {
        effective = caller.approverId();
      } else if (!resolvedBy.equals(caller.approverId())) {
        throw ServiceException.of(
            ErrorCode.FORBIDDEN,
            "this approver key resolves only as its approver_id \""
                + caller.approverId()
                + "\"; omit resolved_by or send that value");
      }
    }
    validate(resolution, effective, note);
    return effective;
  }

  static void validate(String resolution, String resolvedBy, String note) {
    Validation v = new Validation();
    if (v.required("resolution", resolution)
        && !Set.of("approved", "rejected").contains(resolution)) {
      v.add(
          "resolution",
          "must be approved or rejected, got \"" + Validation.clip(resolution) + "\"");
    }
    if (v.required("resolved_by", resolvedBy)) {
      v.identifier("resolved_by", resolvedBy);
    }
    v.text("note", note);
    v.throwIfInvalid();
    Validation.rejectPii("resolved_by", resolvedBy);
  }

  public Outcome resolve(
      Tx tx, Caller caller, String id, String resolution, String resolvedBy, String note) {
    if (!caller.isPro()) {
      throw ServiceException.of(
          ErrorCode.PLAN_REQUIRED, "escalation resolution needs the pro plan");
    }
    String ws = caller.workspaceId();
    EscalationRow e =
        tx.escalation(ws, id).orElseThrow(() -> ServiceException.notFound("escalation"));
    AuthorizationRow auth =
        tx.authorizationForUpdate(ws, e.authorizationId())
            .orElseThrow(() -> ServiceException.notFound("escalation"));
    e = tx.escalation(ws, id).orElseThrow(() -> ServiceException.notFound("escalation"));
    if (!caller.mayResolveEscalationTo(e.escalationTo())) {
      throw ServiceException.of(
          ErrorCode.FORBIDDEN,
          "this approver key resolves only escalations to "
              + labels(caller.targets())
              + " (its targets); escalation "
              + e.escalationId()
              + (e.escalationTo() == null
                  ? " has no escalation_to"
                  : " goes to \"" + Validation.clip(e.escalationTo()) + "\""));
    }
    Instant now = ctx.now();
    if (auth.revokedAt() != null) {
      throw conflict("its authorization was revoked");
    }
    EscalationStatus.Known requested =
        "approved".equals(resolution)
            ? EscalationStatus.Known.APPROVED
            : EscalationStatus.Known.REJECTED;
    EscalationStatus.Known status = e.effectiveStatus(now);
    if (status == EscalationStatus.Known.EXPIRED) {
      throw conflict(
          "it expired at " + dev.agentauth.model.AgentAuthJson.formatInstant(e.expiresAt()));
    }
    if (status != EscalationStatus.Known.PENDING) {
      if (status != requested) {
        throw conflict("it was already resolved as " + status.wireName());
      }
      if (e.approvalConsumedAt() != null) {
        throw conflict("its approval was already consumed by a re-check");
      }
      EscalationRow done = e;
      return Outcome.of(
          200,
          new EscalationResolveResponse(
              done.escalationId(),
              EscalationStatus.of(done.status().wireName()),
              done.resolvedBy(),
              done.resolvedAt(),
              null));
    }
    Instant approvalUntil = null;
    if (requested == EscalationStatus.Known.APPROVED) {
      approvalUntil =
          min(now.plus(DecisionEngine.APPROVAL_WINDOW), min(e.expiresAt(), auth.expiresAt()));
    }
    EscalationRow resolved = e.resolved(requested, resolvedBy, now, note, approvalUntil);
    tx.updateEscalation(resolved);
    ctx.webhookEvents().escalationResolved(tx, resolved, now);
    ObjectNode c = ReceiptFactory.context();
    c.put("escalation_id", e.escalationId());
    c.put("scope", e.scope());
    c.put("resolved_by", resolvedBy);
    if (note != null) {
      c.put("note", note);
    }
    boolean approved = requested == EscalationStatus.Known.APPROVED;
    Decision.Known decision =
        approved ? Decision.Known.ESCALATION_APPROVED : Decision.Known.ESCALATION_REJECTED;
    Reason.Known reason =
        approved ? Reason.Known.ESCALATION_APPROVED : Reason.Known.ESCALATION_REJECTED;
    ReceiptRow receipt =
        ctx.receipts()
            .eventReceipt(
                ws,
                now,
                ReceiptEvent.Known.ESCALATION_RESOLVE,
                decision,
                reason,
                auth.userId(),
                auth.agentId(),
                e.resource(),
                c,
                e.authorizationId());
    tx.insertReceipt(receipt);
    return new Outcome(
        200,
        List.of(receipt),
        view ->
            new EscalationResolveResponse(
                resolved.escalationId(),
                EscalationStatus.of(resolution),
                resolvedBy,
                now,
                view.apply(receipt)));
  }

  public Outcome get(Tx tx, Caller caller, String id) {
    EscalationRow e =
        tx.escalation(caller.workspaceId(), id)
            .orElseThrow(() -> ServiceException.notFound("escalation"));
    return Outcome.of(200, Mapping.escalation(e, ctx.now()));
  }

  public Outcome list(Tx tx, Caller caller, String status, String cursor, int limit) {
    EscalationStatus.Known state =
        Validation.known(
            "status", status, EscalationStatus.Known.values(), EscalationStatus.Known::wireName);
    String filters = "esc|" + status;
    String after = Cursors.decode(cursor, filters);
    Instant now = ctx.now();
    Page<EscalationRow> page =
        tx.listEscalations(
            new EscalationFilter(caller.workspaceId(), state, now), new PageRequest(after, limit));
    PageBudget.Fitted<EscalationRow, dev.agentauth.model.Escalation> fitted =
        PageBudget.fit(ctx.mapper(), page, e -> Mapping.escalation(e, now));
    String next = Cursors.next(filters, fitted.rows(), EscalationRow::escalationId);
    return Outcome.of(200, new EscalationPage(fitted.items(), fitted.rows().hasMore(), next));
  }

  /** Up to five labels, quoted; how many more there are. */
  private static String labels(List<String> targets) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < Math.min(5, targets.size()); i++) {
      b.append(i == 0 ? "" : ", ").append('"').append(Validation.clip(targets.get(i))).append('"');
    }
    if (targets.size() > 5) {
      b.append(" and ").append(targets.size() - 5).append(" more");
    }
    return b.toString();
  }

  private static ServiceException conflict(String why) {
    return ServiceException.of(
        ErrorCode.ESCALATION_CONFLICT, "the escalation cannot be resolved: " + why);
  }

  private static Instant min(Instant a, Instant b) {
    return a.isBefore(b) ? a : b;
  }
}
