package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * One page of {@code GET /v1/receipts}, ascending by {@code receipt_id}. When {@code has_more} is
 * true, pass {@code next_cursor} as {@code cursor} with the same filters.
 */
public record ReceiptPage(
    @JsonProperty("receipts") List<ReceiptSummary> receipts,
    @JsonProperty("has_more") boolean hasMore,
    @JsonProperty("next_cursor") String nextCursor) {

  /** Copies {@code receipts}; {@code null} becomes empty. */
  public ReceiptPage {
    receipts = Copies.listOrEmpty(receipts);
  }
}
