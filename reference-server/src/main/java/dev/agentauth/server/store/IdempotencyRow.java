package dev.agentauth.server.store;

import java.time.Instant;

/**
 * The first response given for one {@code Idempotency-Key} of one API key, replayed byte for byte
 * for 24 hours.
 */
public record IdempotencyRow(
    String apiKeyHash,
    String idempotencyKey,
    String requestHash,
    int status,
    String contentType,
    byte[] body,
    Instant createdAt) {}
