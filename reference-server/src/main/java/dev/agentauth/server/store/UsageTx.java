package dev.agentauth.server.store;

import java.time.LocalDate;
import java.util.Map;

/**
 * What each workspace stored per UTC day, for the receipt quotas: receipts written and their bytes.
 * The server keeps the live counts in memory and adds them here in the background; the rows are
 * where a restarted server, or another instance, reads them back from.
 */
public interface UsageTx {

  /**
   * A workspace's receipts of one UTC day.
   *
   * @param receipts receipts written
   * @param bytes characters of their canonical payloads
   */
  record ReceiptUsage(long receipts, long bytes) {
    public static final ReceiptUsage NONE = new ReceiptUsage(0, 0);

    public ReceiptUsage plus(long moreReceipts, long moreBytes) {
      return new ReceiptUsage(receipts + moreReceipts, bytes + moreBytes);
    }
  }

  /** The usage recorded on {@code day}, by workspace; workspaces without any are absent. */
  Map<String, ReceiptUsage> receiptUsages(LocalDate day);

  /** Adds to the usage recorded for {@code workspaceId} on {@code day} (creating it at zero). */
  void addReceiptUsage(String workspaceId, LocalDate day, long receipts, long bytes);
}
