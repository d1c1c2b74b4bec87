package dev.agentauth.verifier;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.verifier.signing.ReceiptSigner;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;

/**
 * Test keys, a keys document and receipt builders; every receipt is valid until a test breaks it.
 */
final class Fixtures {

  static final ObjectMapper MAPPER = new ObjectMapper();

  static final String WORKSPACE = "ws_fixture";
  static final Instant NOW = Instant.parse("2026-06-01T12:00:00Z");
  static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);

  /** The current key: active from 2026-01-01, no end. */
  static final ReceiptSigner K1 = ReceiptSigner.fromSeed("fixture/k1", seed(1));

  /** A retired key: active 2025-01-01 until 2026-01-01. */
  static final ReceiptSigner K0 = ReceiptSigner.fromSeed("fixture/k0", seed(0));

  /** A key nobody published. */
  static final ReceiptSigner STRANGER = ReceiptSigner.fromSeed("fixture/k1", seed(9));

  static final String K1_FROM = "2026-01-01T00:00:00Z";
  static final String K0_FROM = "2025-01-01T00:00:00Z";
  static final String K0_UNTIL = "2026-01-01T00:00:00Z";

  static final String AUTHORIZATION = "auth_01JFIXTURE0000000000000000";

  private Fixtures() {}

  static byte[] seed(int n) {
    byte[] seed = new byte[32];
    Arrays.fill(seed, (byte) (0x40 + n));
    return seed;
  }

  static ObjectNode keysDocument() {
    ObjectNode doc = MAPPER.createObjectNode();
    doc.put("workspace_id", WORKSPACE);
    ArrayNode keys = doc.putArray("keys");
    ObjectNode k0 = keys.addObject();
    k0.put("key_id", K0.keyId());
    k0.put("alg", "Ed25519");
    k0.put("public_key", K0.publicKeyBase64Url());
    k0.put("active_from", K0_FROM);
    k0.put("active_until", K0_UNTIL);
    ObjectNode k1 = keys.addObject();
    k1.put("key_id", K1.keyId());
    k1.put("alg", "Ed25519");
    k1.put("public_key", K1.publicKeyBase64Url());
    k1.put("active_from", K1_FROM);
    k1.putNull("active_until");
    return doc;
  }

  static ReceiptVerifier verifier() {
    return ReceiptVerifier.builder().keys(keysDocument()).clock(CLOCK).build();
  }

  /** An unsigned scope receipt (decision allow) issued one hour before {@link #NOW}. */
  static ObjectNode scopeReceipt() {
    ObjectNode r = MAPPER.createObjectNode();
    r.put("version", "1.0");
    r.put("receipt_id", "01JFIXTURESCOPE00000000000");
    r.put("workspace_id", WORKSPACE);
    r.put("issued_at", "2026-06-01T11:00:00.000Z");
    r.put("decision", "allow");
    r.put("reason", "authorization_granted_scope_active");
    r.put("user_id", "user_42");
    r.put("agent_id", "agent_mail");
    r.put("scope", "email.send");
    r.put("resource", "mailbox:inbox");
    ObjectNode context = r.putObject("context");
    context.put("session_id", "sess_1");
    context.putObject("client_context").put("initiated_by", "user").put("attempt", 2);
    r.put("authorization_id", AUTHORIZATION);
    r.put("policy_version", "2026-05-01.1");
    return r;
  }

  /** An unsigned authorization.create receipt issued two hours before {@link #NOW}. */
  static ObjectNode createReceipt() {
    ObjectNode r =
        event("01JFIXTURECREATE0000000000", "authorization.create", "authorization_granted");
    r.put("issued_at", "2026-06-01T10:00:00.000Z");
    r.put("reason", "authorization_created");
    ObjectNode context = (ObjectNode) r.get("context");
    context.putArray("scopes").addObject().put("name", "email.send");
    context.put("expires_at", "2026-12-31T00:00:00.000Z");
    context.putObject("metadata");
    return r;
  }

  /** An unsigned authorization.revoke receipt issued 30 minutes before {@link #NOW}. */
  static ObjectNode revokeReceipt() {
    ObjectNode r =
        event("01JFIXTUREREVOKE0000000000", "authorization.revoke", "authorization_revoked");
    r.put("issued_at", "2026-06-01T11:30:00.000Z");
    r.put("reason", "authorization_revoked");
    ((ObjectNode) r.get("context")).put("revoked_by", "api_key");
    return r;
  }

  /** An unsigned escalation.resolve receipt (approved) carrying a resource. */
  static ObjectNode resolveReceipt() {
    ObjectNode r = event("01JFIXTURERESOLVE000000000", "escalation.resolve", "escalation_approved");
    r.put("issued_at", "2026-06-01T10:30:00.000Z");
    r.put("reason", "escalation_approved");
    r.put("resource", "mailbox:inbox");
    ((ObjectNode) r.get("context")).put("escalation_id", "esc_1").put("scope", "email.send");
    return r;
  }

  private static ObjectNode event(String id, String event, String decision) {
    ObjectNode r = MAPPER.createObjectNode();
    r.put("version", "1.0");
    r.put("receipt_id", id);
    r.put("workspace_id", WORKSPACE);
    r.put("issued_at", "2026-06-01T10:00:00.000Z");
    r.put("decision", decision);
    r.put("reason", "x");
    r.put("user_id", "user_42");
    r.put("agent_id", "agent_mail");
    r.put("event", event);
    r.putNull("resource");
    r.putObject("context");
    r.put("authorization_id", AUTHORIZATION);
    r.put("policy_version", "2026-05-01.1");
    return r;
  }

  static ObjectNode signed(ObjectNode unsigned) {
    return K1.sign(unsigned);
  }

  static String json(JsonNode node) {
    try {
      return MAPPER.writeValueAsString(node);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static JsonNode parse(String json) {
    try {
      return MAPPER.readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static JsonNode vectors() {
    try (InputStream in =
        Fixtures.class.getResourceAsStream("/vectors/receipt-format-v1-draft6.json")) {
      return MAPPER.readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A clock fixed after every vector's issued_at. */
  static final Clock VECTOR_CLOCK =
      Clock.fixed(Instant.parse("2026-07-01T00:00:00Z"), ZoneOffset.UTC);

  static ReceiptVerifier vectorVerifier() {
    return ReceiptVerifier.builder().keys(vectors().get("public_keys")).clock(VECTOR_CLOCK).build();
  }
}
