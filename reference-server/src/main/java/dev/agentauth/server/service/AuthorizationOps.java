package dev.agentauth.server.service;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.model.AgentAuthJson;
import dev.agentauth.model.AuthorizationPage;
import dev.agentauth.model.AuthorizationStatus;
import dev.agentauth.model.CreateAuthorizationRequest;
import dev.agentauth.model.Decision;
import dev.agentauth.model.Reason;
import dev.agentauth.model.ReceiptEvent;
import dev.agentauth.model.RevokeAuthorizationResponse;
import dev.agentauth.model.ScopeEntry;
import dev.agentauth.server.domain.AuthorizationRow;
import dev.agentauth.server.domain.ScopeRule;
import dev.agentauth.server.store.AuthorizationFilter;
import dev.agentauth.server.store.BundleRow;
import dev.agentauth.server.store.Page;
import dev.agentauth.server.store.PageRequest;
import dev.agentauth.server.store.ReceiptRow;
import dev.agentauth.server.store.Tx;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Authorizations: create (inline or from a bundle), revoke, get and list. */
public final class AuthorizationOps {
  private final ServiceContext ctx;

  public AuthorizationOps(ServiceContext ctx) {
    this.ctx = ctx;
  }

  /** Validates what can be checked without the store. */
  /** Validates a revocation request (an empty body is allowed). */
  public static void validate(dev.agentauth.model.RevokeAuthorizationRequest r) {
    Validation v = new Validation();
    v.identifier("revoked_by", r.revokedBy());
    v.text("notes", r.notes());
    v.throwIfInvalid();
    Validation.rejectPii("revoked_by", r.revokedBy());
  }

  public static void validate(CreateAuthorizationRequest r, JsonNode metadata) {
    Validation v = new Validation();
    if (v.required("user_id", r.userId())) {
      v.identifier("user_id", r.userId());
    }
    boolean bundle = r.bundleId() != null;
    if (bundle) {
      v.identifier("bundle_id", r.bundleId());
      if (r.agentId() != null) {
        v.add(
            "agent_id",
            "must be omitted when bundle_id is sent (inline and bundle shapes cannot be mixed)");
      }
      if (r.scopes() != null) {
        v.add(
            "scopes",
            "must be omitted when bundle_id is sent (inline and bundle shapes cannot be mixed)");
      }
    } else {
      if (v.required("agent_id", r.agentId())) {
        v.identifier("agent_id", r.agentId());
      }
      scopeEntries(v, "scopes", r.scopes());
      v.required("expires_at", r.expiresAt());
      Set<String> names = names(r.scopes());
      v.subsetOf("requires_confirm_for", r.requiresConfirmFor(), names);
      v.subsetOf("requires_escalation_for", r.requiresEscalationFor(), names);
      v.escalationTargets("escalation_targets", r.escalationTargets(), names);
    }
    v.nonNegative("budget_limit_micros", r.budgetLimitMicros());
    v.opaqueObject("metadata", metadata);
    v.throwIfInvalid();
    Validation.rejectPii("user_id", r.userId());
    Validation.rejectPii("agent_id", r.agentId());
  }

  /** At most this many {@code allowed_initiators} per scope. */
  public static final int MAX_INITIATORS = 100;

  /** At most this many bytes of {@code scopes}, as compact UTF-8 JSON, per rule set: 64 KiB. */
  public static final int MAX_RULE_SET_BYTES = 64 * 1024;

  private static final ObjectMapper RULE_SET_JSON = AgentAuthJson.newObjectMapper();

  /** Validates a list of scope entries (authorization or bundle). */
  static void scopeEntries(Validation v, String field, List<ScopeEntry> scopes) {
    if (scopes == null) {
      v.add(field, "is required");
      return;
    }
    if (scopes.isEmpty()) {
      v.add(field, "must not be empty");
      return;
    }
    if (scopes.size() > Validation.MAX_SCOPES) {
      v.add(field, "must have at most " + Validation.MAX_SCOPES + " entries, got " + scopes.size());
      return;
    }
    Set<String> seen = new LinkedHashSet<>();
    for (int i = 0; i < scopes.size(); i++) {
      ScopeEntry e = scopes.get(i);
      String f = field + "[" + i + "]";
      if (e == null) {
        v.add(f, "must be an object with a name");
        continue;
      }
      v.scopeName(f + ".name", e.name());
      if (e.name() != null && !seen.add(e.name())) {
        v.add(f + ".name", "duplicate scope \"" + Validation.clip(e.name()) + "\"");
      }
      if (e.constraints() != null) {
        var c = e.constraints();
        v.range(f + ".constraints.max_per_day", c.maxPerDay(), 1, Validation.MAX_SAFE);
        if (c.resourcePattern() != null) {
          v.identifier(f + ".constraints.resource_pattern", c.resourcePattern());
        }
        if (c.allowedInitiators() != null && c.allowedInitiators().size() > MAX_INITIATORS) {
          v.add(
              f + ".constraints.allowed_initiators",
              "must have at most "
                  + MAX_INITIATORS
                  + " entries, got "
                  + c.allowedInitiators().size());
        } else if (c.allowedInitiators() != null) {
          List<String> ai = c.allowedInitiators();
          for (int j = 0; j < ai.size(); j++) {
            if (ai.get(j) == null) {
              v.add(f + ".constraints.allowed_initiators[" + j + "]", "must be a string");
            } else {
              v.identifier(f + ".constraints.allowed_initiators[" + j + "]", ai.get(j));
            }
          }
        }
      }
    }
    ruleSetSize(v, field, scopes);
  }

  /**
   * The rule set's size: {@code scopes} as compact UTF-8 JSON (constraints included), at most
   * {@link #MAX_RULE_SET_BYTES}. Checked once every entry is valid, so each is bounded already.
   */
  static void ruleSetSize(Validation v, String field, List<ScopeEntry> scopes) {
    if (!v.ok() || scopes == null) {
      return;
    }
    int bytes;
    try {
      bytes = RULE_SET_JSON.writeValueAsBytes(scopes).length;
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialize valid scopes", e);
    }
    if (bytes > MAX_RULE_SET_BYTES) {
      v.add(
          field,
          "the scopes with their constraints must serialize to at most "
              + MAX_RULE_SET_BYTES
              + " bytes of JSON, got "
              + bytes);
    }
  }

  static Set<String> names(List<ScopeEntry> scopes) {
    Set<String> names = new LinkedHashSet<>();
    if (scopes != null) {
      for (ScopeEntry e : scopes) {
        if (e != null && e.name() != null) {
          names.add(e.name());
        }
      }
    }
    return names;
  }

  /** Creates an authorization and its {@code authorization.create} receipt. */
  public Outcome create(Tx tx, Caller caller, CreateAuthorizationRequest r, ObjectNode metadata) {
    String ws = caller.workspaceId();
    Instant now = ctx.now();
    String agentId;
    List<ScopeRule> scopes;
    List<String> confirm;
    List<String> escalate;
    Map<String, String> targets;
    Instant expiresAt = r.expiresAt();
    if (r.bundleId() != null) {
      BundleRow b =
          tx.bundle(ws, r.bundleId())
              .filter(BundleRow::isActive)
              .orElseThrow(
                  () ->
                      new ServiceException.Builder(
                              ErrorCode.BUNDLE_NOT_FOUND, "bundle_id names no active bundle")
                          .field(
                              "bundle_id",
                              "no active bundle \"" + Validation.clip(r.bundleId()) + "\"")
                          .build());
      agentId = b.agentId();
      scopes = b.scopes();
      Set<String> names = new LinkedHashSet<>();
      scopes.forEach(s -> names.add(s.name()));
      Validation v = new Validation();
      v.subsetOf("requires_confirm_for", r.requiresConfirmFor(), names);
      v.subsetOf("requires_escalation_for", r.requiresEscalationFor(), names);
      v.escalationTargets("escalation_targets", r.escalationTargets(), names);
      if (expiresAt == null && b.defaultExpiryDays() == null) {
        v.add("expires_at", "is required: the bundle has no default_expiry_days");
      }
      v.throwIfInvalid();
      confirm = r.requiresConfirmFor() != null ? r.requiresConfirmFor() : b.requiresConfirmFor();
      escalate =
          r.requiresEscalationFor() != null ? r.requiresEscalationFor() : b.requiresEscalationFor();
      targets = r.escalationTargets() != null ? r.escalationTargets() : b.escalationTargets();
      if (expiresAt == null) {
        expiresAt = now.plus(Duration.ofDays(b.defaultExpiryDays()));
      }
    } else {
      agentId = r.agentId();
      scopes = Mapping.rules(r.scopes());
      confirm = orEmpty(r.requiresConfirmFor());
      escalate = orEmpty(r.requiresEscalationFor());
      targets = r.escalationTargets() == null ? Map.of() : r.escalationTargets();
    }
    Validation v = new Validation();
    v.expiry("expires_at", expiresAt, now);
    v.throwIfInvalid();
    requirePro(caller, escalate, r.budgetLimitMicros());

    String id = "auth_" + ctx.ulid();
    AuthorizationRow row =
        new AuthorizationRow(
            ws,
            id,
            r.userId(),
            agentId,
            r.bundleId(),
            scopes,
            dedupe(confirm),
            dedupe(escalate),
            new LinkedHashMap<>(targets),
            expiresAt,
            r.budgetLimitMicros(),
            0,
            now,
            null,
            metadata == null ? ReceiptFactory.context() : metadata);
    tx.insertAuthorization(row);

    ObjectNode c = ReceiptFactory.context();
    c.set("metadata", row.metadata());
    c.set("scopes", ctx.mapper().valueToTree(Mapping.entries(row.scopes())));
    c.put("expires_at", AgentAuthJson.formatInstant(row.expiresAt()));
    c.set("requires_confirm_for", strings(row.requiresConfirmFor()));
    c.set("requires_escalation_for", strings(row.requiresEscalationFor()));
    c.set("escalation_targets", ctx.mapper().valueToTree(row.escalationTargets()));
    if (row.budgetLimitMicros() == null) {
      c.putNull("budget_limit_micros");
    } else {
      c.put("budget_limit_micros", row.budgetLimitMicros());
    }
    c.put("bundle_id", row.bundleId());
    ReceiptRow receipt =
        ctx.receipts()
            .eventReceipt(
                ws,
                now,
                ReceiptEvent.Known.AUTHORIZATION_CREATE,
                Decision.Known.AUTHORIZATION_GRANTED,
                Reason.Known.AUTHORIZATION_CREATED,
                row.userId(),
                row.agentId(),
                null,
                c,
                id);
    tx.insertReceipt(receipt);
    return new Outcome(
        201,
        List.of(receipt),
        view -> Mapping.authorization(ctx.mapper(), row, now, view.apply(receipt)));
  }

  private static void requirePro(Caller caller, List<String> escalate, Long budget) {
    if (caller.isPro()) {
      return;
    }
    ServiceException.Builder b = null;
    if (escalate != null && !escalate.isEmpty()) {
      b =
          new ServiceException.Builder(
              ErrorCode.PLAN_REQUIRED, "requires_escalation_for needs the pro plan");
      b.field("requires_escalation_for", "needs the pro plan");
    }
    if (budget != null) {
      if (b == null) {
        b =
            new ServiceException.Builder(
                ErrorCode.PLAN_REQUIRED, "budget_limit_micros needs the pro plan");
      }
      b.field("budget_limit_micros", "needs the pro plan");
    }
    if (b != null) {
      throw b.build();
    }
  }

  /** Revokes an authorization: 404 unknown, 409 already revoked; an expired one can be revoked. */
  public Outcome revoke(Tx tx, Caller caller, String id, String revokedBy, String notes) {
    String ws = caller.workspaceId();
    AuthorizationRow auth =
        tx.authorizationForUpdate(ws, id)
            .orElseThrow(() -> ServiceException.notFound("authorization"));
    if (auth.revokedAt() != null) {
      throw ServiceException.of(
          ErrorCode.ALREADY_REVOKED,
          "authorization "
              + id
              + " was revoked at "
              + AgentAuthJson.formatInstant(auth.revokedAt()));
    }
    Instant now = ctx.now();
    AuthorizationRow revoked = auth.withRevokedAt(now);
    // Its pending escalations now read as expired (Tx's escalation reads end their lifetime at
    // revoked_at): revocation writes none of them, whatever their number.
    tx.updateAuthorization(revoked);
    ctx.webhookEvents().authorizationRevoked(tx, revoked, now);
    ObjectNode c = ReceiptFactory.context();
    c.put("revoked_by", revokedBy == null ? "api_key" : revokedBy);
    if (notes != null) {
      c.put("notes", notes);
    }
    ReceiptRow receipt =
        ctx.receipts()
            .eventReceipt(
                ws,
                now,
                ReceiptEvent.Known.AUTHORIZATION_REVOKE,
                Decision.Known.AUTHORIZATION_REVOKED,
                Reason.Known.AUTHORIZATION_REVOKED,
                auth.userId(),
                auth.agentId(),
                null,
                c,
                id);
    tx.insertReceipt(receipt);
    return new Outcome(
        200,
        List.of(receipt),
        view -> new RevokeAuthorizationResponse(id, now, view.apply(receipt)));
  }

  public Outcome get(Tx tx, Caller caller, String id) {
    AuthorizationRow a =
        tx.authorization(caller.workspaceId(), id)
            .orElseThrow(() -> ServiceException.notFound("authorization"));
    return Outcome.of(200, Mapping.authorization(ctx.mapper(), a, ctx.now(), null));
  }

  public Outcome list(
      Tx tx,
      Caller caller,
      String userId,
      String agentId,
      String status,
      String cursor,
      int limit) {
    AuthorizationStatus.Known state =
        Validation.known(
            "status",
            status,
            AuthorizationStatus.Known.values(),
            AuthorizationStatus.Known::wireName);
    String filters = "auth|" + userId + "|" + agentId + "|" + status;
    String after = Cursors.decode(cursor, filters);
    Instant now = ctx.now();
    Page<AuthorizationRow> page =
        tx.listAuthorizations(
            new AuthorizationFilter(caller.workspaceId(), userId, agentId, state, now),
            new PageRequest(after, limit));
    PageBudget.Fitted<AuthorizationRow, dev.agentauth.model.Authorization> fitted =
        PageBudget.fit(ctx.mapper(), page, a -> Mapping.authorization(ctx.mapper(), a, now, null));
    String next = Cursors.next(filters, fitted.rows(), AuthorizationRow::authorizationId);
    return Outcome.of(200, new AuthorizationPage(fitted.items(), fitted.rows().hasMore(), next));
  }

  private static List<String> orEmpty(List<String> l) {
    return l == null ? List.of() : l;
  }

  private static List<String> dedupe(List<String> l) {
    return List.copyOf(new LinkedHashSet<>(l));
  }

  private ArrayNode strings(List<String> values) {
    ArrayNode a = ctx.mapper().createArrayNode();
    values.forEach(a::add);
    return a;
  }
}
