package dev.agentauth.server.store.jdbc;

import dev.agentauth.server.domain.AuthorizationRow;
import dev.agentauth.server.domain.EscalationRow;
import dev.agentauth.server.domain.GrantRow;
import dev.agentauth.server.domain.NonceRow;
import dev.agentauth.server.store.CheckTx;
import dev.agentauth.server.store.ReceiptRow;
import dev.agentauth.server.store.Store.GroupKey;
import dev.agentauth.server.store.jdbc.JdbcTx.CounterKey;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The {@link CheckTx} the works of one group run on (see {@link
 * dev.agentauth.server.store.Store#inGroupedTransaction}). The group's authorizations are locked,
 * and their tombstone flags read, by one statement before the first work runs. What checks write
 * most — receipts, allow counters, budget spend — is kept here and written in one batch per table
 * when the group ends, so that a group of checks costs a few round trips in all; the counters and
 * authorization rows the works read reflect what earlier works of the group wrote.
 *
 * <p>The rest of a check (nonces, confirmation windows, escalations) runs at once on the underlying
 * {@link JdbcTx}, after the writes kept so far are flushed, so it sees them. A work that throws is
 * undone by restoring what was kept before it began — unless statements it caused already ran
 * ({@link #undoWork} then answers false and the group must be rolled back and its works run again
 * one by one).
 */
final class GroupTx implements CheckTx {

  private final JdbcTx base;
  private final Map<GroupKey, CheckTarget> targets;

  /** Locked authorizations as the works so far left them; absent ids map to null. */
  private final Map<AuthKey, AuthorizationRow> current = new HashMap<>();

  /** Stored counter values read so far (kept current through flushes). */
  private final Map<CounterKey, Long> stored = new HashMap<>();

  // Writes kept for the end of the group.
  private Map<AuthKey, AuthorizationRow> dirty = new LinkedHashMap<>();
  private Map<CounterKey, Long> deltas = new LinkedHashMap<>();
  private final List<ReceiptRow> receipts = new ArrayList<>();

  // What was kept when the current work began, to undo it.
  private Map<AuthKey, AuthorizationRow> savedCurrent;
  private Map<AuthKey, AuthorizationRow> savedDirty;
  private Map<CounterKey, Long> savedDeltas;
  private int savedReceipts;
  private boolean workKept;
  private boolean undoable;

  GroupTx(JdbcTx base, Map<GroupKey, CheckTarget> targets) {
    this.base = base;
    this.targets = targets;
    for (Map.Entry<GroupKey, CheckTarget> e : targets.entrySet()) {
      GroupKey k = e.getKey();
      current.putIfAbsent(
          new AuthKey(k.workspaceId(), k.authorizationId()),
          e.getValue().authorization().orElse(null));
    }
  }

  // ---- the life of one work

  /** Marks where the next work begins. */
  void beginWork() {
    savedCurrent = new HashMap<>(current);
    savedDirty = new LinkedHashMap<>(dirty);
    savedDeltas = new LinkedHashMap<>(deltas);
    savedReceipts = receipts.size();
    workKept = false;
    undoable = true;
  }

  /**
   * Forgets what the current work did; false when that is impossible because statements it caused
   * already ran on the database.
   */
  boolean undoWork() {
    if (!undoable) {
      return false;
    }
    current.clear();
    current.putAll(savedCurrent);
    dirty = savedDirty;
    deltas = savedDeltas;
    receipts.subList(savedReceipts, receipts.size()).clear();
    return true;
  }

  /** Writes everything kept so far. */
  void flush() {
    if (workKept) {
      undoable = false; // the current work's own writes are now in the database
    }
    for (AuthorizationRow row : dirty.values()) {
      base.updateAuthorization(row);
    }
    base.addAllowCounts(deltas);
    deltas.forEach((k, d) -> stored.computeIfPresent(k, (kk, v) -> v + d));
    base.insertReceipts(receipts);
    dirty = new LinkedHashMap<>();
    deltas = new LinkedHashMap<>();
    receipts.clear();
    // Nothing is kept any more: undoing the current work (if still possible) restores nothing.
    savedDirty = new LinkedHashMap<>();
    savedDeltas = new LinkedHashMap<>();
    savedReceipts = 0;
  }

  /** Before an operation that runs at once: flush, so it sees the group's writes. */
  private JdbcTx now() {
    flush();
    return base;
  }

  /** Before a write that runs at once: it cannot be undone in memory. */
  private JdbcTx nowWriting() {
    flush();
    undoable = false;
    return base;
  }

  private boolean locked(String workspaceId, String authorizationId) {
    return current.containsKey(new AuthKey(workspaceId, authorizationId));
  }

  // ---- kept: authorizations, counters, receipts

  @Override
  public CheckTarget authorizationForCheck(
      String workspaceId, String authorizationId, String resource) {
    CheckTarget t = targets.get(new GroupKey(workspaceId, authorizationId, resource));
    if (t == null) {
      return now().authorizationForCheck(workspaceId, authorizationId, resource);
    }
    AuthorizationRow row = current.get(new AuthKey(workspaceId, authorizationId));
    return row == null
        ? new CheckTarget(Optional.empty(), false)
        : new CheckTarget(Optional.of(row), t.resourceTombstoned(), t.tombstonePatterns());
  }

  @Override
  public void updateAuthorization(AuthorizationRow row) {
    AuthKey k = new AuthKey(row.workspaceId(), row.authorizationId());
    if (current.get(k) == null) {
      nowWriting().updateAuthorization(row);
      return;
    }
    current.put(k, row);
    dirty.put(k, row);
    workKept = true;
  }

  @Override
  public long allowCount(String workspaceId, String authorizationId, String scope, LocalDate day) {
    if (!locked(workspaceId, authorizationId)) {
      return now().allowCount(workspaceId, authorizationId, scope, day);
    }
    // Nobody else changes the counters of an authorization this group holds locked.
    CounterKey k = new CounterKey(workspaceId, authorizationId, scope, day);
    long value =
        stored.computeIfAbsent(k, kk -> base.allowCount(workspaceId, authorizationId, scope, day));
    return value + deltas.getOrDefault(k, 0L);
  }

  @Override
  public void addAllowCount(
      String workspaceId, String authorizationId, String scope, LocalDate day, long delta) {
    if (!locked(workspaceId, authorizationId)) {
      nowWriting().addAllowCount(workspaceId, authorizationId, scope, day, delta);
      return;
    }
    deltas.merge(new CounterKey(workspaceId, authorizationId, scope, day), delta, Long::sum);
    workKept = true;
  }

  @Override
  public void insertReceipt(ReceiptRow row) {
    receipts.add(row);
    workKept = true;
  }

  // ---- the rest of a check runs at once

  @Override
  public Optional<NonceRow> openNonce(
      String workspaceId, String authorizationId, String scope, String resource, Instant now) {
    return now().openNonce(workspaceId, authorizationId, scope, resource, now);
  }

  @Override
  public void insertNonce(NonceRow row) {
    nowWriting().insertNonce(row);
  }

  @Override
  public Optional<GrantRow> activeGrant(
      String workspaceId, String authorizationId, String scope, String resource, Instant now) {
    return now().activeGrant(workspaceId, authorizationId, scope, resource, now);
  }

  @Override
  public Optional<EscalationRow> latestEscalation(
      String workspaceId, String authorizationId, String scope, String resource) {
    return now().latestEscalation(workspaceId, authorizationId, scope, resource);
  }

  @Override
  public void insertEscalation(EscalationRow row) {
    nowWriting().insertEscalation(row);
  }

  @Override
  public void updateEscalation(EscalationRow row) {
    nowWriting().updateEscalation(row);
  }

  @Override
  public void enqueueWebhookEvent(dev.agentauth.server.store.WebhookEvent event) {
    nowWriting().enqueueWebhookEvent(event);
  }
}
