package dev.agentauth.server.store;

import java.time.Instant;

/** The filters of {@code GET /v1/receipts}; null members do not filter. They combine with AND. */
public record ReceiptFilter(
    String authorizationId,
    String userId,
    String resource,
    String sessionId,
    String scope,
    String event,
    String decision,
    Instant from,
    Instant to) {

  /** Whether {@code row} passes every filter ({@code from} inclusive, {@code to} exclusive). */
  public boolean matches(ReceiptRow row) {
    return eq(authorizationId, row.authorizationId())
        && eq(userId, row.userId())
        && eq(resource, row.resource())
        && eq(sessionId, row.sessionId())
        && eq(scope, row.scope())
        && eq(event, row.event())
        && eq(decision, row.decision())
        && (from == null || !row.issuedAt().isBefore(from))
        && (to == null || row.issuedAt().isBefore(to));
  }

  private static boolean eq(String want, String have) {
    return want == null || want.equals(have);
  }
}
