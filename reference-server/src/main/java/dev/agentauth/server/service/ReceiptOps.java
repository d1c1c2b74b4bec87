package dev.agentauth.server.service;

import dev.agentauth.model.PendingReceipt;
import dev.agentauth.model.ReceiptLookup;
import dev.agentauth.model.ReceiptPage;
import dev.agentauth.model.ReceiptSummary;
import dev.agentauth.model.SignedReceipt;
import dev.agentauth.server.store.Page;
import dev.agentauth.server.store.ReceiptFilter;
import dev.agentauth.server.store.ReceiptRow;
import dev.agentauth.server.store.Tx;
import java.io.IOException;
import java.io.UncheckedIOException;

/** Receipts: get one (pending or signed) and list summaries. */
public final class ReceiptOps {
  private final ServiceContext ctx;
  private final java.util.function.Supplier<String> publicUrl;

  /**
   * @param publicUrl the server's public base URL (known once the port is bound)
   */
  public ReceiptOps(ServiceContext ctx, java.util.function.Supplier<String> publicUrl) {
    this.ctx = ctx;
    this.publicUrl = publicUrl;
  }

  /** The pending envelope of a receipt row. */
  public PendingReceipt pending(ReceiptRow row) {
    return new PendingReceipt(
        row.receiptId(), ctx.signer().readyAtEstimate(), url(row.receiptId()));
  }

  /** The signed receipt object parsed from its stored text. */
  public SignedReceipt signed(String signedJson) {
    try {
      return ctx.mapper().readValue(signedJson, SignedReceipt.class);
    } catch (IOException e) {
      throw new UncheckedIOException("stored receipt is unreadable", e);
    }
  }

  public String url(String receiptId) {
    return publicUrl.get() + "/v1/receipts/" + receiptId;
  }

  public Outcome get(Tx tx, Caller caller, String id) {
    ReceiptRow row =
        tx.receipt(caller.workspaceId(), id)
            .orElseThrow(() -> ServiceException.notFound("receipt"));
    ReceiptLookup body =
        row.isSigned() ? new ReceiptLookup.Signed(signed(row.signedJson())) : pending(row);
    return Outcome.of(200, body);
  }

  public Outcome list(Tx tx, Caller caller, ReceiptFilter filter, String cursor, int limit) {
    String filters = "receipts|" + filter;
    String after = Cursors.decode(cursor, filters);
    Page<ReceiptRow> page = tx.listReceipts(caller.workspaceId(), filter, after, limit);
    PageBudget.Fitted<ReceiptRow, ReceiptSummary> fitted =
        PageBudget.fit(ctx.mapper(), page, Mapping::summary);
    String next = Cursors.next(filters, fitted.rows(), ReceiptRow::receiptId);
    return Outcome.of(200, new ReceiptPage(fitted.items(), fitted.rows().hasMore(), next));
  }
}
