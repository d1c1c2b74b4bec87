package dev.agentauth.server.store;

import dev.agentauth.server.domain.AuthorizationRow;
import java.util.Optional;

/**
 * The operations available inside one transaction: every role together. Every method maps to one
 * SQL statement (or a small fixed number); nothing here only makes sense in memory. Lookups by id
 * are always scoped to a workspace so another workspace's rows are invisible. Code that needs only
 * part of a transaction takes that role ({@link CheckTx} for a check).
 */
public interface Tx
    extends WorkspaceTx,
        AuthorizationTx,
        CheckTx,
        ConfirmationTx,
        EscalationTx,
        BundleTx,
        TombstoneTx,
        ReceiptTx,
        SigningTx,
        IdempotencyTx,
        UsageTx,
        WebhookTx,
        LogTx {

  /**
   * {@link #authorizationForUpdate}, an exact tombstone lookup and the tombstone patterns, for a
   * store that cannot answer them in one statement.
   */
  @Override
  default CheckTarget authorizationForCheck(
      String workspaceId, String authorizationId, String resource) {
    Optional<AuthorizationRow> row = authorizationForUpdate(workspaceId, authorizationId);
    if (row.isEmpty()) {
      return new CheckTarget(row, false);
    }
    boolean tombstoned = resource != null && tombstone(workspaceId, resource).isPresent();
    return new CheckTarget(row, tombstoned, tombstonePatterns(workspaceId));
  }
}
