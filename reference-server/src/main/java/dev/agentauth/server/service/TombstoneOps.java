package dev.agentauth.server.service;

import dev.agentauth.model.TombstonePage;
import dev.agentauth.server.store.Page;
import dev.agentauth.server.store.PageRequest;
import dev.agentauth.server.store.TombstoneRow;
import dev.agentauth.server.store.Tx;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Tombstones: permanent blocks on exact resource strings. No receipts. */
public final class TombstoneOps {
  private final ServiceContext ctx;

  public TombstoneOps(ServiceContext ctx) {
    this.ctx = ctx;
  }

  public static void validate(String resource, String reason) {
    Validation v = new Validation();
    if (v.required("resource", resource)) {
      v.identifier("resource", resource);
    }
    v.text("reason", reason);
    v.throwIfInvalid();
  }

  /** 201 with a new tombstone, or 200 with the existing one for an already tombstoned resource. */
  public Outcome create(Tx tx, Caller caller, String resource, String reason) {
    tx.lock("tombstone/" + caller.workspaceId() + "/" + resource);
    Optional<TombstoneRow> existing = tx.tombstone(caller.workspaceId(), resource);
    if (existing.isPresent()) {
      return Outcome.of(200, Mapping.tombstone(existing.get()));
    }
    TombstoneRow row = new TombstoneRow(caller.workspaceId(), resource, reason, ctx.now());
    tx.insertTombstone(row);
    return Outcome.of(201, Mapping.tombstone(row));
  }

  public Outcome list(Tx tx, Caller caller, String cursor, int limit) {
    String filters = "tombstones";
    String after = Cursors.decode(cursor, filters);
    Page<TombstoneRow> page =
        tx.listTombstones(caller.workspaceId(), new PageRequest(after, limit));
    List<dev.agentauth.model.Tombstone> items = new ArrayList<>();
    page.items().forEach(t -> items.add(Mapping.tombstone(t)));
    String next = Cursors.next(filters, page, TombstoneRow::resource);
    return Outcome.of(200, new TombstonePage(items, page.hasMore(), next));
  }
}
