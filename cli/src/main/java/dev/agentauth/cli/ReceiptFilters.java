package dev.agentauth.cli;

import dev.agentauth.client.ReceiptListParams;
import dev.agentauth.model.Decision;
import dev.agentauth.model.ReceiptEvent;
import java.time.Instant;
import picocli.CommandLine.Option;

/** The filters of {@code GET /v1/receipts}, shared by {@code receipts list|export|tail}. */
final class ReceiptFilters {
  @Option(
      names = {"--authorization", "--grant"},
      paramLabel = "ID",
      description = "One grant's whole chain (creation, checks, resolutions, revocation).")
  String authorizationId;

  @Option(names = "--user", paramLabel = "USER_ID", description = "One end user's receipts.")
  String userId;

  @Option(names = "--resource", paramLabel = "R", description = "Receipts touching a resource.")
  String resource;

  @Option(names = "--session", paramLabel = "ID", description = "One session's receipts.")
  String sessionId;

  @Option(names = "--scope", paramLabel = "NAME", description = "One scope's receipts.")
  String scope;

  @Option(
      names = "--event",
      paramLabel = "EVENT",
      description = "authorization.create, authorization.revoke or escalation.resolve.")
  String event;

  @Option(
      names = "--decision",
      paramLabel = "DECISION",
      description =
          "allow, deny, confirm, escalate, authorization_granted, authorization_revoked,"
              + " escalation_approved or escalation_rejected.")
  String decision;

  @Option(
      names = "--from",
      paramLabel = "TIME",
      converter = Instants.class,
      description = "Issued at or after (RFC 3339, inclusive).")
  Instant from;

  @Option(
      names = "--to",
      paramLabel = "TIME",
      converter = Instants.class,
      description = "Issued before (RFC 3339, exclusive).")
  Instant to;

  /** The list parameters of these filters, pages of {@code limit}. */
  ReceiptListParams params(int limit) {
    ReceiptListParams.Builder b = ReceiptListParams.builder().limit(limit);
    b.authorizationId(authorizationId).userId(userId).resource(resource).sessionId(sessionId);
    b.scope(scope).from(from).to(to);
    if (event != null) {
      b.event(ReceiptEvent.of(event));
    }
    if (decision != null) {
      b.decision(Decision.of(decision));
    }
    return b.build();
  }
}
