package dev.agentauth.server.service;

import dev.agentauth.model.TombstonePage;
import dev.agentauth.server.store.Page;
import dev.agentauth.server.store.PageRequest;
import dev.agentauth.server.store.TombstoneRow;
import dev.agentauth.server.store.Tx;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Tombstones: permanent blocks on an exact resource string, or on every resource a pattern matches
 * (the matcher of a scope's {@code resource_pattern}). No receipts.
 *
 * <p>Every check of the workspace matches its resource against every pattern tombstone, at most
 * pattern length × resource length steps each; {@link #MAX_PATTERNS} bounds that work.
 */
public final class TombstoneOps {
  /** The most pattern tombstones a workspace may have; creating one more is a 400. */
  public static final int MAX_PATTERNS = 100;

  /** Listing order: exact tombstones by resource, then pattern tombstones by pattern. */
  private static final String LIST_FILTERS = "tombstones:exact,pattern";

  private static final String EXACT = "r";
  private static final String PATTERN = "p";

  private final ServiceContext ctx;

  public TombstoneOps(ServiceContext ctx) {
    this.ctx = ctx;
  }

  /** Exactly one of {@code resource} and {@code resourcePattern}, each 1–256 characters. */
  public static void validate(String resource, String resourcePattern, String reason) {
    Validation v = new Validation();
    if (resource != null && resourcePattern != null) {
      v.add(
          "resource_pattern",
          "must not be given together with resource: a tombstone blocks either one exact"
              + " resource or the resources one pattern matches");
    } else if (resource == null && resourcePattern == null) {
      v.add("resource", "is required (or resource_pattern, to block every resource it matches)");
    }
    v.identifier("resource", resource);
    v.identifier("resource_pattern", resourcePattern);
    v.text("reason", reason);
    v.throwIfInvalid();
  }

  /**
   * 201 with a new tombstone, or 200 with the existing one for an already tombstoned resource or
   * pattern. Exactly one of {@code resource} and {@code resourcePattern} is set ({@link
   * #validate}).
   */
  public Outcome create(
      Tx tx, Caller caller, String resource, String resourcePattern, String reason) {
    return resourcePattern == null
        ? createExact(tx, caller, resource, reason)
        : createPattern(tx, caller, resourcePattern, reason);
  }

  private Outcome createExact(Tx tx, Caller caller, String resource, String reason) {
    tx.lock("tombstone/" + caller.workspaceId() + "/" + resource);
    Optional<TombstoneRow> existing = tx.tombstone(caller.workspaceId(), resource);
    if (existing.isPresent()) {
      return Outcome.of(200, Mapping.tombstone(existing.get()));
    }
    TombstoneRow row = new TombstoneRow(caller.workspaceId(), resource, reason, ctx.now());
    tx.insertTombstone(row);
    return Outcome.of(201, Mapping.tombstone(row));
  }

  /** One lock per workspace, so that concurrent creations cannot pass the cap together. */
  private Outcome createPattern(Tx tx, Caller caller, String pattern, String reason) {
    String ws = caller.workspaceId();
    tx.lock("tombstone-patterns/" + ws);
    Optional<TombstoneRow> existing = tx.tombstonePattern(ws, pattern);
    if (existing.isPresent()) {
      return Outcome.of(200, Mapping.tombstone(existing.get()));
    }
    if (tx.tombstonePatterns(ws).size() >= MAX_PATTERNS) {
      throw ServiceException.invalid(
          "resource_pattern",
          "the workspace already has "
              + MAX_PATTERNS
              + " pattern tombstones, the most it may have (each check matches every one):"
              + " combine patterns, or tombstone exact resources instead");
    }
    TombstoneRow row = TombstoneRow.pattern(ws, pattern, reason, ctx.now());
    tx.insertTombstonePattern(row);
    return Outcome.of(201, Mapping.tombstone(row));
  }

  /** Exact tombstones by resource, then pattern tombstones by pattern. */
  public Outcome list(Tx tx, Caller caller, String cursor, int limit) {
    String ws = caller.workspaceId();
    String after = Cursors.decode(cursor, LIST_FILTERS);
    List<TombstoneRow> rows = new ArrayList<>();
    String afterPattern = null;
    boolean more;
    if (after == null || after.startsWith(EXACT)) {
      Page<TombstoneRow> exact =
          tx.listTombstones(
              ws, new PageRequest(after == null ? null : after.substring(EXACT.length()), limit));
      rows.addAll(exact.items());
      more = exact.hasMore();
    } else if (after.startsWith(PATTERN)) {
      afterPattern = after.substring(PATTERN.length());
      more = false;
    } else {
      throw ServiceException.invalid("cursor", "is not a cursor issued by this server");
    }
    if (!more) {
      if (rows.size() < limit) {
        Page<TombstoneRow> patterns =
            tx.listTombstonePatterns(ws, new PageRequest(afterPattern, limit - rows.size()));
        rows.addAll(patterns.items());
        more = patterns.hasMore();
      } else {
        more = !tx.listTombstonePatterns(ws, PageRequest.first(1)).items().isEmpty();
      }
    }
    List<dev.agentauth.model.Tombstone> items = new ArrayList<>();
    rows.forEach(t -> items.add(Mapping.tombstone(t)));
    String next = Cursors.next(LIST_FILTERS, new Page<>(rows, more), TombstoneOps::listKey);
    return Outcome.of(200, new TombstonePage(items, more, next));
  }

  private static String listKey(TombstoneRow t) {
    return t.isPattern() ? PATTERN + t.resourcePattern() : EXACT + t.resource();
  }
}
