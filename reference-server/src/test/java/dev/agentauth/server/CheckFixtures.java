package dev.agentauth.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.server.ServerHarness.Resp;
import dev.agentauth.verifier.VerificationResult;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * Small helpers shared by the check-related integration tests: create an authorization from a
 * partial body, send checks, resolve confirmations and escalations, and read back what the server
 * stored. Every helper asserts the status it expects, so tests read as the flow they prove.
 *
 * <pre>{@code
 * String id = CheckFixtures.authorize(h, "{\"scopes\":[{\"name\":\"email.send\"}]}");
 * JsonNode r = CheckFixtures.check(h, id, "email.send").resource("mailbox:1").result();
 * }</pre>
 */
final class CheckFixtures {
  /** Default expiry of authorizations created by {@link #authorize}: seven days after START. */
  static final String EXPIRES = "2026-11-29T10:00:00.000Z";

  /** A receipt id: a bare 26-character Crockford base32 ULID. */
  static final String ULID = "[0-9A-HJKMNP-TV-Z]{26}";

  private CheckFixtures() {}

  /**
   * Creates an authorization from {@code partialJson}, filling in {@code user_id} ({@code user_1}),
   * {@code agent_id} ({@code agent_1}) and {@code expires_at} ({@link #EXPIRES}) when absent, and
   * returns its id.
   */
  static String authorize(ServerHarness h, String partialJson) {
    ObjectNode body = h.json(partialJson);
    if (!body.has("user_id")) {
      body.put("user_id", "user_1");
    }
    if (!body.has("agent_id") && !body.has("bundle_id")) {
      body.put("agent_id", "agent_1");
    }
    if (!body.has("expires_at")) {
      body.put("expires_at", EXPIRES);
    }
    Resp r = h.post("/v1/authorizations", body);
    assertThat(r.status()).as(r.raw()).isEqualTo(201);
    return r.body().path("authorization_id").asText();
  }

  /** An authorization of one plain scope with no constraints. */
  static String authorizeScopes(ServerHarness h, String... scopes) {
    ObjectNode body = h.mapper.createObjectNode();
    ArrayNode list = body.putArray("scopes");
    for (String s : scopes) {
      list.addObject().put("name", s);
    }
    return authorize(h, body.toString());
  }

  /** Starts a check of {@code scopes} on {@code authorizationId}. */
  static Check check(ServerHarness h, String authorizationId, String... scopes) {
    return new Check(h, authorizationId, scopes);
  }

  /** A {@code POST /v1/check} being put together. */
  static final class Check {
    private final ServerHarness h;
    private final ObjectNode body;
    private boolean waitForSigning;

    private Check(ServerHarness h, String authorizationId, String... scopes) {
      this.h = h;
      this.body = h.mapper.createObjectNode();
      body.put("authorization_id", authorizationId);
      ArrayNode list = body.putArray("scopes");
      for (String s : scopes) {
        list.add(s);
      }
    }

    Check resource(String resource) {
      body.put("resource", resource);
      return this;
    }

    Check session(String sessionId) {
      body.put("session_id", sessionId);
      return this;
    }

    Check cost(long estimatedCostMicros) {
      body.put("estimated_cost_micros", estimatedCostMicros);
      return this;
    }

    Check context(String json) {
      body.set("context", h.json(json));
      return this;
    }

    /** Sends with {@code ?wait=true}. */
    Check waitForSigning() {
      this.waitForSigning = true;
      return this;
    }

    Resp send() {
      return h.post(waitForSigning ? "/v1/check?wait=true" : "/v1/check", body);
    }

    /** Sends and returns the 200 response body. */
    JsonNode ok() {
      Resp r = send();
      assertThat(r.status()).as(r.raw()).isEqualTo(200);
      return r.body();
    }

    /** Sends a single-scope check and returns that scope's result. */
    JsonNode result() {
      assertThat(body.path("scopes").size()).isEqualTo(1);
      String scope = body.path("scopes").get(0).asText();
      JsonNode result = ok().path("results").path(scope);
      assertThat(result.isObject()).as("result for %s", scope).isTrue();
      return result;
    }

    /**
     * Sends a single-scope check and returns the decision and reason as {@code decision/reason}.
     */
    String outcome() {
      return CheckFixtures.outcome(result());
    }
  }

  /** {@code decision/reason} of a check result, e.g. {@code deny/scope_not_authorized}. */
  static String outcome(JsonNode result) {
    return result.path("decision").asText() + "/" + result.path("reason").asText();
  }

  /** The receipt id of a check result (pending envelope or signed receipt). */
  static String receiptId(JsonNode result) {
    return result.path("receipt").path("receipt_id").asText();
  }

  /** {@code POST /v1/confirmations/{nonce}} with a raw JSON body. */
  static Resp confirm(ServerHarness h, String nonce, String bodyJson) {
    return h.post("/v1/confirmations/" + nonce, h.json(bodyJson));
  }

  /** Approves {@code nonce} with the default TTL and returns the 200 body. */
  static JsonNode approve(ServerHarness h, String nonce) {
    Resp r = confirm(h, nonce, "{\"approved\":true}");
    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    return r.body();
  }

  /** {@code POST /v1/escalations/{id}/resolve}. */
  static Resp resolve(ServerHarness h, String escalationId, String resolution, String resolvedBy) {
    ObjectNode body = h.mapper.createObjectNode();
    body.put("resolution", resolution);
    body.put("resolved_by", resolvedBy);
    return h.post("/v1/escalations/" + escalationId + "/resolve", body);
  }

  /** Resolves and returns the 200 body. */
  static JsonNode resolveOk(ServerHarness h, String escalationId, String resolution) {
    Resp r = resolve(h, escalationId, resolution, "approver_7");
    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    return r.body();
  }

  /** Tombstones {@code resource} in the current workspace. */
  static void tombstone(ServerHarness h, String resource) {
    ObjectNode body = h.mapper.createObjectNode().put("resource", resource);
    Resp r = h.post("/v1/tombstones", body);
    assertThat(r.status()).as(r.raw()).isIn(200, 201);
  }

  /** Revokes an authorization. */
  static void revoke(ServerHarness h, String authorizationId) {
    Resp r = h.delete("/v1/authorizations/" + authorizationId);
    assertThat(r.status()).as(r.raw()).isEqualTo(200);
  }

  /** {@code GET /v1/authorizations/{id}}. */
  static JsonNode authorization(ServerHarness h, String authorizationId) {
    Resp r = h.get("/v1/authorizations/" + authorizationId);
    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    return r.body();
  }

  /** {@code GET /v1/escalations/{id}}. */
  static JsonNode escalation(ServerHarness h, String escalationId) {
    Resp r = h.get("/v1/escalations/" + escalationId);
    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    return r.body();
  }

  /** Every receipt summary matching {@code query} (e.g. {@code scope=x&decision=allow}). */
  static List<JsonNode> receipts(ServerHarness h, String query) {
    List<JsonNode> out = new ArrayList<>();
    String cursor = null;
    do {
      Resp r =
          h.get(
              "/v1/receipts?limit=100"
                  + (query.isEmpty() ? "" : "&" + query)
                  + (cursor == null ? "" : "&cursor=" + cursor));
      assertThat(r.status()).as(r.raw()).isEqualTo(200);
      r.body().path("receipts").forEach(out::add);
      cursor = r.body().path("has_more").asBoolean() ? r.body().path("next_cursor").asText() : null;
    } while (cursor != null);
    return out;
  }

  /** The receipt ids of {@link #receipts}. */
  static List<String> receiptIds(ServerHarness h, String query) {
    List<String> ids = new ArrayList<>();
    receipts(h, query).forEach(s -> ids.add(s.path("receipt_id").asText()));
    return ids;
  }

  /** URL-encodes a query parameter value. */
  static String enc(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }

  /** Waits for the receipt to be signed, verifies it offline and returns it. */
  static JsonNode verifiedReceipt(ServerHarness h, String receiptId) {
    JsonNode receipt = h.signedReceipt(receiptId);
    VerificationResult result = h.verifier(h.workspaceId()).verify(receipt.toString());
    assertThat(result.valid()).as("receipt %s: %s", receiptId, result).isTrue();
    return receipt;
  }

  /** The member names of an object, in order. */
  static List<String> fieldNames(JsonNode node) {
    List<String> names = new ArrayList<>();
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      names.add(it.next());
    }
    return names;
  }

  /** {@code instant} formatted as the API writes timestamps ({@code 2026-11-22T10:00:00.000Z}). */
  static String at(Instant instant) {
    return dev.agentauth.model.AgentAuthJson.formatInstant(instant);
  }
}
