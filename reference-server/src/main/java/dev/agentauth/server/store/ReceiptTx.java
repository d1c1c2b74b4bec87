package dev.agentauth.server.store;

import java.util.Optional;

/**
 * Receipts by id and the filtered list (inserted by the operations that decide, {@link CheckTx}).
 */
public interface ReceiptTx {

  Optional<ReceiptRow> receipt(String workspaceId, String receiptId);

  /** Receipts in ascending id order after {@code afterId}, filtered. */
  Page<ReceiptRow> listReceipts(String workspaceId, ReceiptFilter filter, PageRequest page);
}
