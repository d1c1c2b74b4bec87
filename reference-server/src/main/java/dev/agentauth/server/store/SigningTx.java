package dev.agentauth.server.store;

import java.time.Instant;
import java.util.List;

/** What the signer needs: the pending receipts, claiming them, storing their signed forms. */
public interface SigningTx {

  /** Pending receipts of every workspace in id order, at most {@code limit}. */
  List<ReceiptRow> pendingReceipts(String afterId, int limit);

  /**
   * How many receipts of every workspace are pending, counting no further than {@code atMost} (so
   * the count costs at most that many index entries): the signer's backlog as the store sees it.
   */
  long countPendingReceipts(long atMost);

  /**
   * Pending receipts of one workspace in id order after {@code afterId} (null: from the first), at
   * most {@code limit}: what the signer reads back, one workspace in turn, so that a workspace's
   * backlog in the store never stands before another's receipts.
   */
  List<ReceiptRow> pendingReceipts(String workspaceId, String afterId, int limit);

  /** {@link #countPendingReceipts(long)} of one workspace. */
  long countPendingReceipts(String workspaceId, long atMost);

  /**
   * Workspaces holding pending receipts, in id order after {@code afterWorkspaceId} (null: from the
   * first), at most {@code limit}; each costs one index seek however many receipts it holds.
   */
  List<String> pendingWorkspaces(String afterWorkspaceId, int limit);

  /**
   * Pending receipts issued before {@code issuedBefore}, in id order, at most {@code limit}, locked
   * until this transaction ends; rows another transaction holds are skipped ({@code FOR UPDATE SKIP
   * LOCKED}), so concurrent claimers — in any server instance — never get the same receipt.
   */
  List<ReceiptRow> claimPending(Instant issuedBefore, int limit);

  /**
   * Sets the signed form of a pending receipt. Returns true when this call stored it; false when
   * the receipt was already signed (it is left as it is), does not exist, or {@code signedJson} is
   * not its payload with a signature member appended ({@link
   * dev.agentauth.verifier.signing.SignedReceiptText#isSignedFormOf}; nothing is stored then).
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
}
