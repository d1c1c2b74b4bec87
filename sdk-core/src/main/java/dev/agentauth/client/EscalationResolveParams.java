package dev.agentauth.client;

import dev.agentauth.client.internal.Validation;
import dev.agentauth.model.EscalationResolveRequest;
import dev.agentauth.model.Resolution;
import java.util.Objects;

/**
 * A validated {@code POST /v1/escalations/{id}/resolve} body. Resolve only after a real approver
 * decided; {@code resolved_by} is the approver's opaque internal id, never an e-mail address or
 * name.
 *
 * <pre>{@code
 * client.escalations().resolve(escalationId,
 *     EscalationResolveParams.approve("approver_7").withNote("ticket SEC-112"));
 * // with an approver key, which resolves under its own approver_id:
 * approverClient.escalations().resolve(escalationId, EscalationResolveParams.approve());
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 */
public final class EscalationResolveParams {
  private final EscalationResolveRequest body;

  private EscalationResolveParams(EscalationResolveRequest body) {
    this.body = body;
  }

  /**
   * Returns an approval by {@code resolvedBy}.
   *
   * @throws IllegalArgumentException if {@code resolvedBy} is blank or a raw e-mail address
   */
  public static EscalationResolveParams approve(String resolvedBy) {
    return of(Resolution.APPROVED, resolvedBy);
  }

  /**
   * Returns a rejection by {@code resolvedBy}.
   *
   * @throws IllegalArgumentException if {@code resolvedBy} is blank or a raw e-mail address
   */
  public static EscalationResolveParams reject(String resolvedBy) {
    return of(Resolution.REJECTED, resolvedBy);
  }

  /**
   * Returns an approval without {@code resolved_by}, for an {@code approver} API key: the service
   * records the key's own {@code approver_id}. A {@code full} key must name the approver ({@link
   * #approve(String)}); the service answers it 400.
   */
  public static EscalationResolveParams approve() {
    return new EscalationResolveParams(
        new EscalationResolveRequest(Resolution.APPROVED, null, null));
  }

  /**
   * Returns a rejection without {@code resolved_by}, for an {@code approver} API key: the service
   * records the key's own {@code approver_id}.
   */
  public static EscalationResolveParams reject() {
    return new EscalationResolveParams(
        new EscalationResolveRequest(Resolution.REJECTED, null, null));
  }

  /**
   * Returns a resolution by {@code resolvedBy}.
   *
   * @throws IllegalArgumentException if {@code resolvedBy} is blank or a raw e-mail address
   */
  public static EscalationResolveParams of(Resolution resolution, String resolvedBy) {
    Objects.requireNonNull(resolution, "resolution");
    Validation.opaqueId(resolvedBy, "resolved_by");
    return new EscalationResolveParams(new EscalationResolveRequest(resolution, resolvedBy, null));
  }

  /** Returns a copy carrying a {@code note}, which is copied into the resolution receipt. */
  public EscalationResolveParams withNote(String note) {
    return new EscalationResolveParams(
        new EscalationResolveRequest(body.resolution(), body.resolvedBy(), note));
  }

  /** Returns the request body sent to the service. */
  public EscalationResolveRequest body() {
    return body;
  }

  @Override
  public String toString() {
    return "EscalationResolveParams{" + body + "}";
  }
}
