package dev.agentauth.server.service;

import dev.agentauth.model.ConfirmationDecision;
import dev.agentauth.model.ConfirmationResolution;
import dev.agentauth.model.ConfirmationVia;
import dev.agentauth.server.domain.AuthorizationRow;
import dev.agentauth.server.domain.GrantRow;
import dev.agentauth.server.domain.NonceRow;
import dev.agentauth.server.store.Tx;
import java.time.Instant;

/**
 * {@code POST /v1/confirmations/{nonce}}. Approving opens a confirmation window of {@code
 * ttl_seconds} that records who approved (the calling key's id and role) and through what ({@code
 * via}), for the receipts of the allows it gives; declining consumes the nonce and leaves no
 * lasting block. Every kind of unusable nonce answers the same 410, so nonces cannot be enumerated.
 */
public final class ConfirmationOps {
  public static final long DEFAULT_TTL = 60;
  public static final long MAX_TTL = 300;

  private final ServiceContext ctx;

  public ConfirmationOps(ServiceContext ctx) {
    this.ctx = ctx;
  }

  /**
   * Validates a resolution body.
   *
   * @return the {@code via} to record: the request's, or {@code api} when it sent none
   */
  public static ConfirmationVia.Known validate(
      Boolean approved, Long ttlSeconds, ConfirmationVia via) {
    Validation v = new Validation();
    v.required("approved", approved);
    v.range("ttl_seconds", ttlSeconds, 1, MAX_TTL);
    if (via != null && !via.isKnown()) {
      v.add(
          "via",
          "must be api, mcp_elicitation or console, got \"" + Validation.clip(via.value()) + "\"");
    }
    v.throwIfInvalid();
    return via == null ? ConfirmationVia.Known.API : via.known().orElseThrow();
  }

  public Outcome resolve(
      Tx tx,
      Caller caller,
      String nonce,
      boolean approved,
      Long ttlSeconds,
      ConfirmationVia.Known via) {
    String ws = caller.workspaceId();
    Instant now = ctx.now();
    NonceRow row = tx.nonce(ws, nonce).orElseThrow(ConfirmationOps::gone);
    // Lock the authorization first: every change to its state is serialized on that row.
    AuthorizationRow auth =
        tx.authorizationForUpdate(ws, row.authorizationId()).orElseThrow(ConfirmationOps::gone);
    row = tx.nonce(ws, nonce).orElseThrow(ConfirmationOps::gone);
    if (!row.isOpen(now) || auth.revokedAt() != null) {
      throw gone();
    }
    tx.updateNonce(row.consumed(now, approved));
    if (!approved) {
      return Outcome.of(
          200, new ConfirmationResolution(ConfirmationDecision.DENIED_BY_USER, null, null));
    }
    long ttl = ttlSeconds == null ? DEFAULT_TTL : ttlSeconds;
    GrantRow grant =
        new GrantRow(
            ws,
            "cfa_" + ctx.ulid(),
            row.authorizationId(),
            row.scope(),
            row.resource(),
            nonce,
            now,
            now.plusSeconds(ttl),
            new GrantRow.ApprovedBy(caller.keyId(), caller.role().value(), via.wireName()));
    tx.insertGrant(grant);
    return Outcome.of(
        200,
        new ConfirmationResolution(
            ConfirmationDecision.APPROVED, grant.grantId(), grant.expiresAt()));
  }

  private static ServiceException gone() {
    return ServiceException.of(
        ErrorCode.NONCE_GONE,
        "the confirmation nonce is expired, already used, unknown, or its authorization was revoked");
  }
}
