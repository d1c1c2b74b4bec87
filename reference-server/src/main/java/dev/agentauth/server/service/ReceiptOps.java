package dev.agentauth.server.service;

import dev.agentauth.model.Decision;
import dev.agentauth.model.PendingReceipt;
import dev.agentauth.model.ReceiptEvent;
import dev.agentauth.model.ReceiptLookup;
import dev.agentauth.model.ReceiptPage;
import dev.agentauth.model.ReceiptSummary;
import dev.agentauth.model.SignedReceipt;
import dev.agentauth.server.store.Page;
import dev.agentauth.server.store.PageRequest;
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
  /** The receipt list's {@code event} values: sdk-core's known receipt events. */
  private static final java.util.SortedSet<String> EVENTS =
      java.util.Collections.unmodifiableSortedSet(
          java.util.Arrays.stream(ReceiptEvent.Known.values())
              .map(ReceiptEvent.Known::wireName)
              .collect(java.util.stream.Collectors.toCollection(java.util.TreeSet::new)));

  /** The receipt list's {@code decision} values: sdk-core's known decisions. */
  private static final java.util.SortedSet<String> DECISIONS =
      java.util.Collections.unmodifiableSortedSet(
          java.util.Arrays.stream(Decision.Known.values())
              .map(Decision.Known::wireName)
              .collect(java.util.stream.Collectors.toCollection(java.util.TreeSet::new)));

  /**
   * The receipt list's filter from its query parameters, validated: {@code event} and {@code
   * decision} must be known values, {@code from} and {@code to} RFC 3339 timestamps.
   *
   * @param query the value of a query parameter by name, or null
   */
  public static ReceiptFilter filter(java.util.function.UnaryOperator<String> query) {
    Validation v = new Validation();
    String event = query.apply("event");
    if (event != null && !EVENTS.contains(event)) {
      v.add("event", "must be one of " + String.join(", ", EVENTS));
    }
    String decision = query.apply("decision");
    if (decision != null && !DECISIONS.contains(decision)) {
      v.add("decision", "must be one of " + String.join(", ", DECISIONS));
    }
    java.time.Instant from = instant(query, "from", v);
    java.time.Instant to = instant(query, "to", v);
    v.throwIfInvalid();
    return new ReceiptFilter(
        query.apply("authorization_id"),
        query.apply("user_id"),
        query.apply("resource"),
        query.apply("session_id"),
        query.apply("scope"),
        event,
        decision,
        from,
        to);
  }

  private static java.time.Instant instant(
      java.util.function.UnaryOperator<String> query, String name, Validation v) {
    String raw = query.apply(name);
    if (raw == null) {
      return null;
    }
    try {
      return dev.agentauth.model.AgentAuthJson.parseInstant(raw);
    } catch (IllegalArgumentException e) {
      v.add(name, "must be an RFC 3339 timestamp with an offset, e.g. 2026-11-22T10:15:30Z");
      return null;
    }
  }

  public PendingReceipt pending(ReceiptRow row) {
    return new PendingReceipt(
        row.receiptId(), ctx.signer().readyAtEstimate(row.workspaceId()), url(row.receiptId()));
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
    if (!row.isSigned()) {
      return Outcome.of(200, pending(row));
    }
    java.util.OptionalLong index = tx.logIndex(caller.workspaceId(), id);
    return Outcome.of(
        200,
        new SignedLookup(
            ReceiptLookup.Signed.STATUS,
            index.isPresent() ? index.getAsLong() : null,
            signed(row.signedJson())));
  }

  /**
   * A signed receipt by id: {@link ReceiptLookup.Signed} with the receipt's place in its
   * workspace's log once the log integrated it (decisions.md §18).
   */
  public record SignedLookup(
      @com.fasterxml.jackson.annotation.JsonProperty("status") String status,
      @com.fasterxml.jackson.annotation.JsonProperty("log_index")
          @com.fasterxml.jackson.annotation.JsonInclude(
              com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
          Long logIndex,
      @com.fasterxml.jackson.annotation.JsonProperty("receipt") SignedReceipt receipt) {}

  public Outcome list(Tx tx, Caller caller, ReceiptFilter filter, String cursor, int limit) {
    String filters = "receipts|" + filter;
    String after = Cursors.decode(cursor, filters);
    Page<ReceiptRow> page =
        tx.listReceipts(caller.workspaceId(), filter, new PageRequest(after, limit));
    PageBudget.Fitted<ReceiptRow, ReceiptSummary> fitted =
        PageBudget.fit(ctx.mapper(), page, Mapping::summary);
    String next = Cursors.next(filters, fitted.rows(), ReceiptRow::receiptId);
    return Outcome.of(200, new ReceiptPage(fitted.items(), fitted.rows().hasMore(), next));
  }
}
