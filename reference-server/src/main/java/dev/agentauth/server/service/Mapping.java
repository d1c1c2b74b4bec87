package dev.agentauth.server.service;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.model.Authorization;
import dev.agentauth.model.AuthorizationStatus;
import dev.agentauth.model.Bundle;
import dev.agentauth.model.BundleStatus;
import dev.agentauth.model.Decision;
import dev.agentauth.model.Escalation;
import dev.agentauth.model.EscalationStatus;
import dev.agentauth.model.ReceiptEvent;
import dev.agentauth.model.ReceiptRef;
import dev.agentauth.model.ReceiptSummary;
import dev.agentauth.model.ScopeConstraints;
import dev.agentauth.model.ScopeEntry;
import dev.agentauth.model.Tombstone;
import dev.agentauth.server.domain.AuthorizationRow;
import dev.agentauth.server.domain.EscalationRow;
import dev.agentauth.server.domain.ScopeRule;
import dev.agentauth.server.store.BundleRow;
import dev.agentauth.server.store.ReceiptRow;
import dev.agentauth.server.store.TombstoneRow;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Converts between stored rows and the wire model of sdk-core. */
public final class Mapping {
  private static final TypeReference<LinkedHashMap<String, Object>> MAP = new TypeReference<>() {};

  private Mapping() {}

  public static List<ScopeRule> rules(List<ScopeEntry> entries) {
    List<ScopeRule> out = new ArrayList<>(entries.size());
    for (ScopeEntry e : entries) {
      ScopeConstraints c = e.constraints();
      out.add(
          c == null
              ? new ScopeRule(e.name(), null, null, null)
              : new ScopeRule(e.name(), c.maxPerDay(), c.resourcePattern(), c.allowedInitiators()));
    }
    return out;
  }

  public static List<ScopeEntry> entries(List<ScopeRule> rules) {
    List<ScopeEntry> out = new ArrayList<>(rules.size());
    for (ScopeRule r : rules) {
      out.add(
          new ScopeEntry(
              r.name(),
              r.hasConstraints()
                  ? new ScopeConstraints(r.maxPerDay(), r.resourcePattern(), r.allowedInitiators())
                  : null));
    }
    return out;
  }

  public static Map<String, Object> toMap(ObjectMapper mapper, ObjectNode node) {
    return node == null ? Map.of() : mapper.convertValue(node, MAP);
  }

  public static Authorization authorization(
      ObjectMapper mapper, AuthorizationRow a, Instant now, ReceiptRef receipt) {
    return new Authorization(
        a.authorizationId(),
        a.userId(),
        a.agentId(),
        a.bundleId(),
        entries(a.scopes()),
        a.requiresConfirmFor(),
        a.requiresEscalationFor(),
        a.escalationTargets(),
        a.expiresAt(),
        a.budgetLimitMicros(),
        a.budgetSpentMicros(),
        a.createdAt(),
        a.revokedAt(),
        toMap(mapper, a.metadata()),
        AuthorizationStatus.of(a.status(now).wireName()),
        receipt);
  }

  public static Bundle bundle(BundleRow b) {
    return new Bundle(
        b.bundleId(),
        b.agentId(),
        entries(b.scopes()),
        b.requiresConfirmFor(),
        b.requiresEscalationFor(),
        b.escalationTargets(),
        b.defaultExpiryDays(),
        b.description(),
        b.isActive() ? BundleStatus.ACTIVE : BundleStatus.DELETED,
        b.createdAt(),
        b.updatedAt(),
        b.deletedAt());
  }

  public static Escalation escalation(EscalationRow e, Instant now) {
    return new Escalation(
        e.escalationId(),
        e.authorizationId(),
        e.scope(),
        e.resource(),
        EscalationStatus.of(e.effectiveStatus(now).wireName()),
        e.escalationTo(),
        e.createdAt(),
        e.expiresAt(),
        e.resolvedBy(),
        e.resolvedAt(),
        e.note(),
        e.approvalExpiresAt(),
        e.approvalConsumedAt());
  }

  public static Tombstone tombstone(TombstoneRow t) {
    return new Tombstone(t.resource(), t.resourcePattern(), t.reason(), t.createdAt());
  }

  public static ReceiptSummary summary(ReceiptRow r) {
    return new ReceiptSummary(
        r.receiptId(),
        r.authorizationId(),
        r.scope(),
        r.event() == null ? null : ReceiptEvent.of(r.event()),
        Decision.of(r.decision()),
        r.isSigned(),
        r.issuedAt());
  }
}
