package dev.agentauth.server.domain;

import dev.agentauth.model.EscalationStatus;
import java.time.Instant;

/** An escalation, from {@code pending} through its resolution and the approval's consumption. */
public record EscalationRow(
    String workspaceId,
    String escalationId,
    String authorizationId,
    String scope,
    String resource,
    EscalationStatus.Known status,
    String escalationTo,
    Instant createdAt,
    Instant expiresAt,
    String resolvedBy,
    Instant resolvedAt,
    String note,
    Instant approvalExpiresAt,
    Instant approvalConsumedAt) {

  /** The status stored as {@code stored}; the store only ever writes known values. */
  public static EscalationStatus.Known parseStatus(String stored) {
    return EscalationStatus.of(stored)
        .known()
        .orElseThrow(() -> new IllegalStateException("unknown stored escalation status " + stored));
  }

  /** The status as seen at {@code now}: a pending escalation past its lifetime is expired. */
  public EscalationStatus.Known effectiveStatus(Instant now) {
    return status == EscalationStatus.Known.PENDING && !now.isBefore(expiresAt)
        ? EscalationStatus.Known.EXPIRED
        : status;
  }

  public EscalationRow resolved(
      EscalationStatus.Known resolution,
      String by,
      Instant at,
      String withNote,
      Instant approvalUntil) {
    return changed(resolution, expiresAt, by, at, withNote, approvalUntil, null);
  }

  /**
   * This pending escalation with its lifetime ended at {@code at} (its authorization's revocation).
   */
  public EscalationRow expiringAt(Instant at) {
    return changed(status, at, resolvedBy, resolvedAt, note, approvalExpiresAt, approvalConsumedAt);
  }

  public EscalationRow approvalConsumed(Instant at) {
    return changed(status, expiresAt, resolvedBy, resolvedAt, note, approvalExpiresAt, at);
  }

  /** A copy with the members that change after creation replaced. */
  private EscalationRow changed(
      EscalationStatus.Known newStatus,
      Instant newExpiresAt,
      String newResolvedBy,
      Instant newResolvedAt,
      String newNote,
      Instant newApprovalExpiresAt,
      Instant newApprovalConsumedAt) {
    return new EscalationRow(
        workspaceId,
        escalationId,
        authorizationId,
        scope,
        resource,
        newStatus,
        escalationTo,
        createdAt,
        newExpiresAt,
        newResolvedBy,
        newResolvedAt,
        newNote,
        newApprovalExpiresAt,
        newApprovalConsumedAt);
  }
}
