package dev.agentauth.server.service;

import dev.agentauth.model.BundlePage;
import dev.agentauth.model.BundleRequest;
import dev.agentauth.server.store.BundleRow;
import dev.agentauth.server.store.Page;
import dev.agentauth.server.store.PageRequest;
import dev.agentauth.server.store.Tx;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Agent scope bundles: create, get, edit, list and soft-delete. No receipts. */
public final class BundleOps {
  private final ServiceContext ctx;

  public BundleOps(ServiceContext ctx) {
    this.ctx = ctx;
  }

  /**
   * Validates a bundle body. For an edit, {@code pathId} is the id in the path and the body's
   * {@code id} may be omitted or must equal it.
   */
  public static void validate(BundleRequest r, String pathId) {
    Validation v = new Validation();
    if (pathId == null) {
      if (v.required("id", r.id())) {
        v.identifier("id", r.id());
      }
    } else if (r.id() != null && !r.id().equals(pathId)) {
      v.add("id", "must be omitted or equal the bundle id in the path");
    }
    if (v.required("agent_id", r.agentId())) {
      v.identifier("agent_id", r.agentId());
    }
    AuthorizationOps.scopeEntries(v, "scopes", r.scopes());
    Set<String> names = AuthorizationOps.names(r.scopes());
    v.subsetOf("requires_confirm_for", r.requiresConfirmFor(), names);
    v.subsetOf("requires_escalation_for", r.requiresEscalationFor(), names);
    v.escalationTargets("escalation_targets", r.escalationTargets(), names);
    v.range("default_expiry_days", r.defaultExpiryDays(), 1, 366);
    v.text("description", r.description());
    v.throwIfInvalid();
    Validation.rejectPii("agent_id", r.agentId());
  }

  public Outcome create(Tx tx, Caller caller, BundleRequest r) {
    requirePro(caller, r);
    String ws = caller.workspaceId();
    lock(tx, ws, r.id());
    if (tx.bundle(ws, r.id()).filter(BundleRow::isActive).isPresent()) {
      throw new ServiceException.Builder(
              ErrorCode.BUNDLE_EXISTS, "an active bundle with this id exists")
          .field("id", "bundle \"" + Validation.clip(r.id()) + "\" already exists")
          .build();
    }
    Instant now = ctx.now();
    BundleRow row = row(ws, r.id(), r, now, now);
    tx.upsertBundle(row);
    return Outcome.of(201, Mapping.bundle(row));
  }

  public Outcome edit(Tx tx, Caller caller, String id, BundleRequest r) {
    requirePro(caller, r);
    BundleRow existing = activeForWrite(tx, caller, id);
    BundleRow row = row(caller.workspaceId(), id, r, existing.createdAt(), ctx.now());
    tx.upsertBundle(row);
    return Outcome.of(200, Mapping.bundle(row));
  }

  public Outcome get(Tx tx, Caller caller, String id) {
    return Outcome.of(200, Mapping.bundle(active(tx, caller, id)));
  }

  public Outcome delete(Tx tx, Caller caller, String id) {
    BundleRow deleted = activeForWrite(tx, caller, id).deleted(ctx.now());
    tx.upsertBundle(deleted);
    return Outcome.of(200, Mapping.bundle(deleted));
  }

  public Outcome list(Tx tx, Caller caller, String cursor, int limit) {
    String filters = "bundles";
    String after = Cursors.decode(cursor, filters);
    Page<BundleRow> page =
        tx.listActiveBundles(caller.workspaceId(), new PageRequest(after, limit));
    PageBudget.Fitted<BundleRow, dev.agentauth.model.Bundle> fitted =
        PageBudget.fit(ctx.mapper(), page, Mapping::bundle);
    String next = Cursors.next(filters, fitted.rows(), BundleRow::bundleId);
    return Outcome.of(200, new BundlePage(fitted.items(), fitted.rows().hasMore(), next));
  }

  /** Serializes writes to one bundle id across server instances (the row may not exist yet). */
  private static void lock(Tx tx, String workspaceId, String bundleId) {
    tx.lock("bundle/" + workspaceId + "/" + bundleId);
  }

  private static BundleRow activeForWrite(Tx tx, Caller caller, String id) {
    lock(tx, caller.workspaceId(), id);
    return active(tx, caller, id);
  }

  private static BundleRow active(Tx tx, Caller caller, String id) {
    return tx.bundle(caller.workspaceId(), id)
        .filter(BundleRow::isActive)
        .orElseThrow(() -> ServiceException.notFound("bundle"));
  }

  private static void requirePro(Caller caller, BundleRequest r) {
    if (!caller.isPro()
        && r.requiresEscalationFor() != null
        && !r.requiresEscalationFor().isEmpty()) {
      throw new ServiceException.Builder(
              ErrorCode.PLAN_REQUIRED, "requires_escalation_for needs the pro plan")
          .field("requires_escalation_for", "needs the pro plan")
          .build();
    }
  }

  private static BundleRow row(
      String ws, String id, BundleRequest r, Instant created, Instant now) {
    return new BundleRow(
        ws,
        id,
        r.agentId(),
        Mapping.rules(r.scopes()),
        r.requiresConfirmFor() == null
            ? List.of()
            : List.copyOf(new java.util.LinkedHashSet<>(r.requiresConfirmFor())),
        r.requiresEscalationFor() == null
            ? List.of()
            : List.copyOf(new java.util.LinkedHashSet<>(r.requiresEscalationFor())),
        r.escalationTargets() == null ? Map.of() : r.escalationTargets(),
        r.defaultExpiryDays(),
        r.description(),
        created,
        now,
        null);
  }
}
