package dev.agentauth.server.store;

import dev.agentauth.server.domain.AuthorizationRow;
import dev.agentauth.server.domain.EscalationRow;
import dev.agentauth.server.domain.GrantRow;
import dev.agentauth.server.domain.NonceRow;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Optional;

/**
 * The operations available inside one transaction. Every method maps to one SQL statement (or a
 * small fixed number); nothing here only makes sense in memory. Lookups by id are always scoped to
 * a workspace so another workspace's rows are invisible.
 */
public interface Tx {

  // Workspaces and credentials.
  Optional<WorkspaceRow> workspace(String workspaceId);

  /** Inserts a workspace; false (and nothing written) when one with this id exists. */
  boolean insertWorkspace(WorkspaceRow row);

  /**
   * Takes an exclusive lock on {@code name} held until this transaction ends, so transactions that
   * must not interleave — also in other server instances sharing the store — run one after the
   * other. Used where no row exists yet to lock (an idempotency key, a bundle id). Stores whose
   * write transactions are already serialized may do nothing.
   */
  void lock(String name);

  /**
   * Takes a shared lock on {@code name} held until this transaction ends: shared holders do not
   * wait for each other, but wait for (and hold off) a {@link #lock} of the same name.
   */
  void lockShared(String name);

  Optional<ApiKeyRow> apiKey(String keyHash);

  void insertApiKey(ApiKeyRow row);

  /** Every signing key of the workspace, oldest first. */
  List<SigningKeyRow> signingKeys(String workspaceId);

  void insertSigningKey(SigningKeyRow row);

  void updateSigningKey(SigningKeyRow row);

  // Authorizations.
  Optional<AuthorizationRow> authorization(String workspaceId, String authorizationId);

  /** Like {@link #authorization} but locks the row until the transaction ends. */
  Optional<AuthorizationRow> authorizationForUpdate(String workspaceId, String authorizationId);

  /** An authorization locked for a check, and whether the checked resource is tombstoned. */
  record CheckTarget(Optional<AuthorizationRow> authorization, boolean resourceTombstoned) {}

  /**
   * {@link #authorizationForUpdate} together with whether {@code resource} (null for none) is
   * tombstoned in the workspace — one statement where the store can, since every check asks both.
   * {@code resourceTombstoned} is false when the authorization does not exist.
   */
  default CheckTarget authorizationForCheck(
      String workspaceId, String authorizationId, String resource) {
    Optional<AuthorizationRow> row = authorizationForUpdate(workspaceId, authorizationId);
    boolean tombstoned =
        row.isPresent() && resource != null && tombstone(workspaceId, resource).isPresent();
    return new CheckTarget(row, tombstoned);
  }

  void insertAuthorization(AuthorizationRow row);

  /** Updates the mutable columns ({@code budget_spent_micros}, {@code revoked_at}). */
  void updateAuthorization(AuthorizationRow row);

  /**
   * Authorizations in id order after {@code afterId} (exclusive, null for the start), filtered by
   * the non-null arguments; {@code status} is evaluated at {@code now}.
   */
  Page<AuthorizationRow> listAuthorizations(
      String workspaceId,
      String userId,
      String agentId,
      String status,
      Instant now,
      String afterId,
      int limit);

  // Daily allow counters (per authorization + scope + UTC day).
  long allowCount(String workspaceId, String authorizationId, String scope, LocalDate day);

  void addAllowCount(
      String workspaceId, String authorizationId, String scope, LocalDate day, long delta);

  // Confirmations.
  Optional<NonceRow> nonce(String workspaceId, String nonce);

  /**
   * The newest nonce for this authorization + scope + resource that is still open at {@code now}.
   */
  Optional<NonceRow> openNonce(
      String workspaceId, String authorizationId, String scope, String resource, Instant now);

  void insertNonce(NonceRow row);

  void updateNonce(NonceRow row);

  /**
   * A confirmation window for this authorization + scope + resource still active at {@code now}.
   */
  Optional<GrantRow> activeGrant(
      String workspaceId, String authorizationId, String scope, String resource, Instant now);

  void insertGrant(GrantRow row);

  // Escalations. Revocation writes no escalation row: every read here returns an escalation still
  // pending when its authorization was revoked with its lifetime ended at the revocation ({@code
  // expiresAt} = the authorization's {@code revoked_at}), so it reads as {@code expired}.
  Optional<EscalationRow> escalation(String workspaceId, String escalationId);

  /** The most recently created escalation for this authorization + scope + resource. */
  Optional<EscalationRow> latestEscalation(
      String workspaceId, String authorizationId, String scope, String resource);

  void insertEscalation(EscalationRow row);

  void updateEscalation(EscalationRow row);

  /** Escalations in id order; {@code status} (evaluated at {@code now}) filters when non-null. */
  Page<EscalationRow> listEscalations(
      String workspaceId, String status, Instant now, String afterId, int limit);

  // Bundles (ids chosen by clients; one row per id, soft-deleted rows kept until re-created).
  Optional<BundleRow> bundle(String workspaceId, String bundleId);

  /** Inserts or replaces the row with this workspace and bundle id. */
  void upsertBundle(BundleRow row);

  Page<BundleRow> listActiveBundles(String workspaceId, String afterId, int limit);

  // Tombstones.
  Optional<TombstoneRow> tombstone(String workspaceId, String resource);

  void insertTombstone(TombstoneRow row);

  Page<TombstoneRow> listTombstones(String workspaceId, String afterResource, int limit);

  // Receipts.
  void insertReceipt(ReceiptRow row);

  Optional<ReceiptRow> receipt(String workspaceId, String receiptId);

  /** Receipts in ascending id order after {@code afterId}, filtered. */
  Page<ReceiptRow> listReceipts(
      String workspaceId, ReceiptFilter filter, String afterId, int limit);

  /** Pending receipts of every workspace in id order, at most {@code limit}. */
  List<ReceiptRow> pendingReceipts(String afterId, int limit);

  /**
   * How many receipts of every workspace are pending, counting no further than {@code atMost} (so
   * the count costs at most that many index entries): the signer's backlog as the store sees it.
   */
  long countPendingReceipts(long atMost);

  /**
   * Pending receipts issued before {@code issuedBefore}, in id order, at most {@code limit}, locked
   * until this transaction ends; rows another transaction holds are skipped ({@code FOR UPDATE SKIP
   * LOCKED}), so concurrent claimers — in any server instance — never get the same receipt.
   */
  List<ReceiptRow> claimPending(Instant issuedBefore, int limit);

  /**
   * Sets the signed form of a pending receipt. Returns true when this call stored it; false when
   * the receipt was already signed (it is left as it is), does not exist, or {@code signedJson} is
   * not its payload with a signature member appended ({@link ReceiptRow#isSignedFormOf}; nothing is
   * stored then).
   */
  boolean markSigned(String workspaceId, String receiptId, String signedJson);

  /** A receipt's signed form, for {@link #markSignedAll}. */
  record Signed(String workspaceId, String receiptId, String signedJson) {}

  /**
   * {@link #markSigned} for several receipts, in one round trip where the store can; element {@code
   * i} of the result tells whether this call stored {@code receipts.get(i)}.
   */
  default boolean[] markSignedAll(List<Signed> receipts) {
    boolean[] stored = new boolean[receipts.size()];
    for (int i = 0; i < stored.length; i++) {
      Signed s = receipts.get(i);
      stored[i] = markSigned(s.workspaceId(), s.receiptId(), s.signedJson());
    }
    return stored;
  }

  // Idempotency records.
  Optional<IdempotencyRow> idempotency(String apiKeyHash, String idempotencyKey);

  void insertIdempotency(IdempotencyRow row);

  /** Deletes idempotency records created before {@code cutoff}; returns how many. */
  int purgeIdempotency(Instant cutoff);
}
