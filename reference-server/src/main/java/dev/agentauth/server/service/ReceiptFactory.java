package dev.agentauth.server.service;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.model.AgentAuthJson;
import dev.agentauth.model.Decision;
import dev.agentauth.model.Reason;
import dev.agentauth.model.ReceiptEvent;
import dev.agentauth.server.engine.DecisionEngine;
import dev.agentauth.server.store.ReceiptRow;
import dev.agentauth.verifier.Canonicalizer;
import java.time.Instant;
import java.util.function.Supplier;

/**
 * Builds unsigned receipt rows: the receipt object of the receipt format version 1.0 without its
 * {@code signature}, in canonical form, ready for the signer. Every receipt member the format
 * defines is set here and nowhere else.
 */
public final class ReceiptFactory {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final Supplier<String> receiptIds;

  /**
   * @param receiptIds monotonic ULID source
   */
  public ReceiptFactory(Supplier<String> receiptIds) {
    this.receiptIds = receiptIds;
  }

  /** A fresh, empty {@code context} object. */
  public static ObjectNode context() {
    return NODES.objectNode();
  }

  /** A scope receipt of a check. */
  public ReceiptRow scopeReceipt(
      String workspaceId,
      Instant issuedAt,
      Decision.Known decision,
      Reason.Known reason,
      String userId,
      String agentId,
      String scope,
      String resource,
      String sessionId,
      ObjectNode context,
      String authorizationId) {
    ObjectNode p = base(workspaceId, issuedAt, decision, reason, userId, agentId);
    p.put("scope", scope);
    return finish(
        p,
        workspaceId,
        resource,
        sessionId,
        context,
        authorizationId,
        scope,
        null,
        issuedAt,
        decision,
        userId);
  }

  /**
   * An event receipt ({@code authorization.create}, {@code authorization.revoke}, {@code
   * escalation.resolve}).
   */
  public ReceiptRow eventReceipt(
      String workspaceId,
      Instant issuedAt,
      ReceiptEvent.Known event,
      Decision.Known decision,
      Reason.Known reason,
      String userId,
      String agentId,
      String resource,
      ObjectNode context,
      String authorizationId) {
    ObjectNode p = base(workspaceId, issuedAt, decision, reason, userId, agentId);
    p.put("event", event.wireName());
    return finish(
        p,
        workspaceId,
        resource,
        null,
        context,
        authorizationId,
        null,
        event.wireName(),
        issuedAt,
        decision,
        userId);
  }

  private ObjectNode base(
      String workspaceId,
      Instant issuedAt,
      Decision.Known decision,
      Reason.Known reason,
      String userId,
      String agentId) {
    ObjectNode p = NODES.objectNode();
    p.put("version", "1.0");
    p.put("receipt_id", receiptIds.get());
    p.put("workspace_id", workspaceId);
    p.put("issued_at", AgentAuthJson.formatInstant(issuedAt));
    p.put("decision", decision.wireName());
    p.put("reason", reason.wireName());
    p.put("user_id", userId);
    p.put("agent_id", agentId);
    return p;
  }

  private ReceiptRow finish(
      ObjectNode p,
      String workspaceId,
      String resource,
      String sessionId,
      ObjectNode context,
      String authorizationId,
      String scope,
      String event,
      Instant issuedAt,
      Decision.Known decision,
      String userId) {
    p.put("resource", resource);
    p.set("context", context == null ? NODES.objectNode() : context);
    p.put("authorization_id", authorizationId);
    p.put("policy_version", DecisionEngine.POLICY_VERSION);
    String canonical = Canonicalizer.canonicalString(p);
    return new ReceiptRow(
        workspaceId,
        p.get("receipt_id").asText(),
        authorizationId,
        userId,
        resource,
        sessionId,
        scope,
        event,
        decision.wireName(),
        issuedAt,
        canonical,
        null);
  }
}
