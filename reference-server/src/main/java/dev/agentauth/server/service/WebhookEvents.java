package dev.agentauth.server.service;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.model.AgentAuthJson;
import dev.agentauth.model.WebhookEventType;
import dev.agentauth.server.domain.AuthorizationRow;
import dev.agentauth.server.domain.EscalationRow;
import dev.agentauth.server.domain.NonceRow;
import dev.agentauth.server.store.OutboxTx;
import dev.agentauth.server.store.WebhookEvent;
import java.time.Instant;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * Turns what happened into webhook events for the outbox, each written in the transaction that
 * caused it. A body is {@code {"id","type","created_at","workspace_id","data"}}; {@code data} is
 * the object as the API shows it, and an escalation's carries {@code console_url} when the server
 * knows its public URL. An escalation's expiry is written when the escalation is created, due at
 * its end; its body is built when it is sent, and it is not sent when the escalation was resolved
 * first.
 */
public final class WebhookEvents {
  private final ObjectMapper mapper;
  private final Supplier<String> ids;
  private final String publicUrl;

  /**
   * @param publicUrl the server's public base URL without a trailing slash, or null when unknown
   *     (then no {@code console_url})
   */
  public WebhookEvents(ObjectMapper mapper, Supplier<String> ids, String publicUrl) {
    this.mapper = mapper;
    this.ids = ids;
    this.publicUrl = publicUrl;
  }

  private String newId() {
    return "evt_" + ids.get().toLowerCase(Locale.ROOT);
  }

  /** A new escalation: its {@code escalation.created} now and its {@code escalation.expired}. */
  public void escalationCreated(OutboxTx tx, EscalationRow e, Instant now) {
    enqueue(
        tx,
        WebhookEventType.ESCALATION_CREATED,
        e.workspaceId(),
        now,
        escalationData(e, now),
        e.authorizationId(),
        e.escalationId());
    tx.enqueueWebhookEvent(
        new WebhookEvent(
            e.workspaceId(),
            newId(),
            WebhookEventType.ESCALATION_EXPIRED,
            e.expiresAt(),
            null,
            e.authorizationId(),
            e.escalationId(),
            e.expiresAt()));
  }

  public void escalationResolved(OutboxTx tx, EscalationRow resolved, Instant now) {
    enqueue(
        tx,
        WebhookEventType.ESCALATION_RESOLVED,
        resolved.workspaceId(),
        now,
        escalationData(resolved, now),
        resolved.authorizationId(),
        resolved.escalationId());
  }

  public void confirmationRequested(OutboxTx tx, AuthorizationRow auth, NonceRow n) {
    ObjectNode data = mapper.createObjectNode();
    data.put("nonce", n.nonce());
    data.put("authorization_id", n.authorizationId());
    data.put("user_id", auth.userId());
    data.put("agent_id", auth.agentId());
    data.put("scope", n.scope());
    data.put("resource", n.resource());
    data.put("created_at", AgentAuthJson.formatInstant(n.createdAt()));
    data.put("expires_at", AgentAuthJson.formatInstant(n.expiresAt()));
    enqueue(
        tx,
        WebhookEventType.CONFIRMATION_REQUESTED,
        n.workspaceId(),
        n.createdAt(),
        data,
        n.authorizationId(),
        null);
  }

  /** An authorization's revocation; its pending escalations' expiry events become due now. */
  public void authorizationRevoked(
      dev.agentauth.server.store.WebhookTx tx, AuthorizationRow revoked, Instant now) {
    ObjectNode data = mapper.valueToTree(Mapping.authorization(mapper, revoked, now, null));
    enqueue(
        tx,
        WebhookEventType.AUTHORIZATION_REVOKED,
        revoked.workspaceId(),
        now,
        data,
        revoked.authorizationId(),
        null);
    tx.rescheduleWebhookEvents(
        revoked.workspaceId(), revoked.authorizationId(), WebhookEventType.ESCALATION_EXPIRED, now);
  }

  /**
   * The body of an escalation's {@code escalation.expired} event, built when it is sent from the
   * escalation as it is then (its {@code expires_at} is when it expired).
   */
  public String expiredBody(String eventId, EscalationRow e, Instant now) {
    return body(
        eventId,
        WebhookEventType.ESCALATION_EXPIRED,
        e.expiresAt(),
        e.workspaceId(),
        escalationData(e, now));
  }

  private void enqueue(
      OutboxTx tx,
      String type,
      String workspaceId,
      Instant at,
      ObjectNode data,
      String authorizationId,
      String subjectId) {
    String id = newId();
    tx.enqueueWebhookEvent(
        new WebhookEvent(
            workspaceId,
            id,
            type,
            at,
            body(id, type, at, workspaceId, data),
            authorizationId,
            subjectId,
            at));
  }

  private ObjectNode escalationData(EscalationRow e, Instant now) {
    ObjectNode data = mapper.valueToTree(Mapping.escalation(e, now));
    if (publicUrl != null) {
      data.put("console_url", publicUrl + "/console/#/escalations/" + e.escalationId());
    }
    return data;
  }

  private String body(String id, String type, Instant at, String workspaceId, ObjectNode data) {
    ObjectNode b = mapper.createObjectNode();
    b.put("id", id);
    b.put("type", type);
    b.put("created_at", AgentAuthJson.formatInstant(at));
    b.put("workspace_id", workspaceId);
    b.set("data", data);
    try {
      return mapper.writeValueAsString(b);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write a webhook event", e);
    }
  }
}
