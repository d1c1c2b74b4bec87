package dev.agentauth.server.store.jdbc;

import dev.agentauth.server.domain.AuthorizationRow;
import dev.agentauth.server.domain.EscalationRow;
import dev.agentauth.server.domain.GrantRow;
import dev.agentauth.server.domain.NonceRow;
import dev.agentauth.server.store.ApiKeyRow;
import dev.agentauth.server.store.BundleRow;
import dev.agentauth.server.store.IdempotencyRow;
import dev.agentauth.server.store.Page;
import dev.agentauth.server.store.ReceiptFilter;
import dev.agentauth.server.store.ReceiptRow;
import dev.agentauth.server.store.SigningKeyRow;
import dev.agentauth.server.store.Store.GroupKey;
import dev.agentauth.server.store.TombstoneRow;
import dev.agentauth.server.store.Tx;
import dev.agentauth.server.store.WorkspaceRow;
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
 * The {@link Tx} the works of one group run on (see {@link
 * dev.agentauth.server.store.Store#inGroupedTransaction}). The group's authorizations are locked,
 * and their tombstone flags read, by one statement before the first work runs. What checks write
 * most — receipts, allow counters, budget spend — is kept here and written in one batch per table
 * when the group ends, so that a group of checks costs a few round trips in all; the counters and
 * authorization rows the works read reflect what earlier works of the group wrote.
 *
 * <p>Every other operation runs at once on the underlying {@link JdbcTx}, after the writes kept so
 * far are flushed, so it sees them. A work that throws is undone by restoring what was kept before
 * it began — unless statements it caused already ran ({@link #undoWork} then answers false and the
 * group must be rolled back and its works run again one by one).
 */
final class GroupTx implements Tx {

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
    return new CheckTarget(Optional.ofNullable(row), row != null && t.resourceTombstoned());
  }

  @Override
  public Optional<AuthorizationRow> authorization(String workspaceId, String authorizationId) {
    if (locked(workspaceId, authorizationId)) {
      return Optional.ofNullable(current.get(new AuthKey(workspaceId, authorizationId)));
    }
    return now().authorization(workspaceId, authorizationId);
  }

  @Override
  public Optional<AuthorizationRow> authorizationForUpdate(
      String workspaceId, String authorizationId) {
    if (locked(workspaceId, authorizationId)) {
      return Optional.ofNullable(current.get(new AuthKey(workspaceId, authorizationId)));
    }
    return now().authorizationForUpdate(workspaceId, authorizationId);
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

  // ---- everything else runs at once

  @Override
  public Optional<WorkspaceRow> workspace(String workspaceId) {
    return now().workspace(workspaceId);
  }

  @Override
  public boolean insertWorkspace(WorkspaceRow row) {
    return nowWriting().insertWorkspace(row);
  }

  @Override
  public void lock(String name) {
    nowWriting().lock(name);
  }

  @Override
  public void lockShared(String name) {
    nowWriting().lockShared(name);
  }

  @Override
  public Optional<ApiKeyRow> apiKey(String keyHash) {
    return now().apiKey(keyHash);
  }

  @Override
  public void insertApiKey(ApiKeyRow row) {
    nowWriting().insertApiKey(row);
  }

  @Override
  public List<SigningKeyRow> signingKeys(String workspaceId) {
    return now().signingKeys(workspaceId);
  }

  @Override
  public void insertSigningKey(SigningKeyRow row) {
    nowWriting().insertSigningKey(row);
  }

  @Override
  public void updateSigningKey(SigningKeyRow row) {
    nowWriting().updateSigningKey(row);
  }

  @Override
  public void insertAuthorization(AuthorizationRow row) {
    nowWriting().insertAuthorization(row);
  }

  @Override
  public Page<AuthorizationRow> listAuthorizations(
      String workspaceId,
      String userId,
      String agentId,
      String status,
      Instant now,
      String afterId,
      int limit) {
    return now().listAuthorizations(workspaceId, userId, agentId, status, now, afterId, limit);
  }

  @Override
  public Optional<NonceRow> nonce(String workspaceId, String nonce) {
    return now().nonce(workspaceId, nonce);
  }

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
  public void updateNonce(NonceRow row) {
    nowWriting().updateNonce(row);
  }

  @Override
  public Optional<GrantRow> activeGrant(
      String workspaceId, String authorizationId, String scope, String resource, Instant now) {
    return now().activeGrant(workspaceId, authorizationId, scope, resource, now);
  }

  @Override
  public void insertGrant(GrantRow row) {
    nowWriting().insertGrant(row);
  }

  @Override
  public Optional<EscalationRow> escalation(String workspaceId, String escalationId) {
    return now().escalation(workspaceId, escalationId);
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
  public Page<EscalationRow> listEscalations(
      String workspaceId, String status, Instant now, String afterId, int limit) {
    return now().listEscalations(workspaceId, status, now, afterId, limit);
  }

  @Override
  public Optional<BundleRow> bundle(String workspaceId, String bundleId) {
    return now().bundle(workspaceId, bundleId);
  }

  @Override
  public void upsertBundle(BundleRow row) {
    nowWriting().upsertBundle(row);
  }

  @Override
  public Page<BundleRow> listActiveBundles(String workspaceId, String afterId, int limit) {
    return now().listActiveBundles(workspaceId, afterId, limit);
  }

  @Override
  public Optional<TombstoneRow> tombstone(String workspaceId, String resource) {
    return now().tombstone(workspaceId, resource);
  }

  @Override
  public void insertTombstone(TombstoneRow row) {
    nowWriting().insertTombstone(row);
  }

  @Override
  public Page<TombstoneRow> listTombstones(String workspaceId, String afterResource, int limit) {
    return now().listTombstones(workspaceId, afterResource, limit);
  }

  @Override
  public Optional<ReceiptRow> receipt(String workspaceId, String receiptId) {
    return now().receipt(workspaceId, receiptId);
  }

  @Override
  public Page<ReceiptRow> listReceipts(
      String workspaceId, ReceiptFilter filter, String afterId, int limit) {
    return now().listReceipts(workspaceId, filter, afterId, limit);
  }

  @Override
  public List<ReceiptRow> pendingReceipts(String afterId, int limit) {
    return now().pendingReceipts(afterId, limit);
  }

  @Override
  public long countPendingReceipts(long atMost) {
    return now().countPendingReceipts(atMost);
  }

  @Override
  public List<ReceiptRow> claimPending(Instant issuedBefore, int limit) {
    return nowWriting().claimPending(issuedBefore, limit);
  }

  @Override
  public boolean markSigned(String workspaceId, String receiptId, String signedJson) {
    return nowWriting().markSigned(workspaceId, receiptId, signedJson);
  }

  @Override
  public boolean[] markSignedAll(List<Signed> signed) {
    return nowWriting().markSignedAll(signed);
  }

  @Override
  public Optional<IdempotencyRow> idempotency(String apiKeyHash, String idempotencyKey) {
    return now().idempotency(apiKeyHash, idempotencyKey);
  }

  @Override
  public void insertIdempotency(IdempotencyRow row) {
    nowWriting().insertIdempotency(row);
  }

  @Override
  public int purgeIdempotency(Instant cutoff) {
    return nowWriting().purgeIdempotency(cutoff);
  }
}
