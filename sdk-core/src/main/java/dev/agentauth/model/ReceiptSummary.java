package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;

/**
 * An element of {@link ReceiptPage} ({@code GET /v1/receipts}). All members are always written:
 * {@code event} is explicit {@code null} on scope receipts, {@code scope} on event receipts.
 *
 * @param signed whether signing has finished
 * @param createdAt equals the receipt's {@code issued_at}
 */
public record ReceiptSummary(
    @JsonProperty("receipt_id") String receiptId,
    @JsonProperty("authorization_id") String authorizationId,
    @JsonProperty("scope") String scope,
    @JsonProperty("event") ReceiptEvent event,
    @JsonProperty("decision") Decision decision,
    @JsonProperty("signed") boolean signed,
    @JsonProperty("created_at") Instant createdAt) {}
