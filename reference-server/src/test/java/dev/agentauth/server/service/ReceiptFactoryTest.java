package dev.agentauth.server.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.model.Decision;
import dev.agentauth.model.Reason;
import dev.agentauth.model.ReceiptEvent;
import dev.agentauth.server.engine.DecisionEngine;
import dev.agentauth.server.store.ReceiptRow;
import dev.agentauth.verifier.Canonicalizer;
import dev.agentauth.verifier.ReceiptVerifier;
import dev.agentauth.verifier.VerificationResult;
import dev.agentauth.verifier.signing.ReceiptSigner;
import dev.agentauth.verifier.signing.SignedReceiptText;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Receipt building: every member of the receipt format 1.0 but {@code signature}, in canonical form
 * (the exact bytes the signer signs), with the row's filter columns copied from it.
 */
class ReceiptFactoryTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Instant T0 = Instant.parse("2026-11-22T10:00:00.123Z");
  private static final String ID_1 = "01JDQ4ZK3M0000000000000001";
  private static final String ID_2 = "01JDQ4ZK3M0000000000000002";

  private final Iterator<String> ids = List.of(ID_1, ID_2).iterator();
  private final ReceiptFactory factory = new ReceiptFactory(ids::next);

  private ReceiptRow allowReceipt(ObjectNode context) {
    return factory.scopeReceipt(
        "ws_a",
        T0,
        Decision.Known.ALLOW,
        Reason.Known.AUTHORIZATION_GRANTED_SCOPE_ACTIVE,
        "user_1",
        "agent_1",
        "calendar.read",
        "doc:1",
        "sess_1",
        context,
        "auth_1");
  }

  private static List<String> memberNames(String json) throws Exception {
    List<String> names = new ArrayList<>();
    JSON.readTree(json).fieldNames().forEachRemaining(names::add);
    return names;
  }

  @Test
  void aScopeReceiptIsTheCanonicalReceiptObjectWithoutSignature() {
    ObjectNode context = ReceiptFactory.context();
    context.put("session_id", "sess_1");

    ReceiptRow row = allowReceipt(context);

    assertThat(row.payloadJson())
        .isEqualTo(
            "{\"agent_id\":\"agent_1\",\"authorization_id\":\"auth_1\","
                + "\"context\":{\"session_id\":\"sess_1\"},\"decision\":\"allow\","
                + "\"issued_at\":\"2026-11-22T10:00:00.123Z\",\"policy_version\":\""
                + DecisionEngine.POLICY_VERSION
                + "\",\"reason\":\"authorization_granted_scope_active\",\"receipt_id\":\""
                + ID_1
                + "\",\"resource\":\"doc:1\",\"scope\":\"calendar.read\",\"user_id\":\"user_1\","
                + "\"version\":\"1.0\",\"workspace_id\":\"ws_a\"}");
  }

  @Test
  void theRowCopiesThePayloadsFilterColumnsAndIsPending() {
    ReceiptRow row = allowReceipt(null);

    assertThat(row)
        .extracting(
            ReceiptRow::workspaceId,
            ReceiptRow::receiptId,
            ReceiptRow::authorizationId,
            ReceiptRow::userId,
            ReceiptRow::resource,
            ReceiptRow::sessionId,
            ReceiptRow::scope,
            ReceiptRow::event,
            ReceiptRow::decision,
            ReceiptRow::issuedAt)
        .containsExactly(
            "ws_a",
            ID_1,
            "auth_1",
            "user_1",
            "doc:1",
            "sess_1",
            "calendar.read",
            null,
            "allow",
            T0);
    assertThat(row.isSigned()).isFalse();
    assertThat(row.signedJson()).isNull();
  }

  @Test
  void anEventReceiptNamesItsEventAndNoScope() throws Exception {
    ReceiptRow row =
        factory.eventReceipt(
            "ws_a",
            T0,
            ReceiptEvent.Known.AUTHORIZATION_REVOKE,
            Decision.Known.AUTHORIZATION_REVOKED,
            Reason.Known.AUTHORIZATION_REVOKED,
            "user_1",
            "agent_1",
            null,
            null,
            "auth_1");

    JsonNode payload = JSON.readTree(row.payloadJson());
    assertThat(payload.get("event").asText()).isEqualTo("authorization.revoke");
    assertThat(payload.get("decision").asText()).isEqualTo("authorization_revoked");
    assertThat(payload.has("scope")).isFalse();
    assertThat(row.event()).isEqualTo("authorization.revoke");
    assertThat(row.scope()).isNull();
    assertThat(row.sessionId()).isNull();
    assertThat(memberNames(row.payloadJson()))
        .containsExactly(
            "agent_id",
            "authorization_id",
            "context",
            "decision",
            "event",
            "issued_at",
            "policy_version",
            "reason",
            "receipt_id",
            "resource",
            "user_id",
            "version",
            "workspace_id");
  }

  @Test
  void absentValuesAreExplicitNullsAndAMissingContextIsAnEmptyObject() throws Exception {
    ReceiptRow row =
        factory.scopeReceipt(
            "ws_a",
            T0,
            Decision.Known.DENY,
            Reason.Known.AUTHORIZATION_NOT_FOUND,
            null,
            null,
            "calendar.read",
            null,
            null,
            null,
            "auth_unknown");

    JsonNode payload = JSON.readTree(row.payloadJson());
    assertThat(payload.get("user_id").isNull()).isTrue();
    assertThat(payload.get("agent_id").isNull()).isTrue();
    assertThat(payload.get("resource").isNull()).isTrue();
    assertThat(payload.get("context").isObject()).isTrue();
    assertThat(payload.get("context").size()).isZero();
    assertThat(row.payloadJson()).contains("\"context\":{}");
  }

  @Test
  void issuedAtIsWrittenInUtcWithMilliseconds() throws Exception {
    ReceiptRow whole =
        factory.scopeReceipt(
            "ws_a",
            Instant.parse("2026-11-22T10:00:00Z"),
            Decision.Known.ALLOW,
            Reason.Known.AUTHORIZATION_GRANTED_SCOPE_ACTIVE,
            "user_1",
            "agent_1",
            "calendar.read",
            null,
            null,
            null,
            "auth_1");
    ReceiptRow fine =
        factory.scopeReceipt(
            "ws_a",
            Instant.parse("2026-11-22T10:00:00.123456789Z"),
            Decision.Known.ALLOW,
            Reason.Known.AUTHORIZATION_GRANTED_SCOPE_ACTIVE,
            "user_1",
            "agent_1",
            "calendar.read",
            null,
            null,
            null,
            "auth_1");

    assertThat(JSON.readTree(whole.payloadJson()).get("issued_at").asText())
        .isEqualTo("2026-11-22T10:00:00.000Z");
    assertThat(JSON.readTree(fine.payloadJson()).get("issued_at").asText())
        .isEqualTo("2026-11-22T10:00:00.123Z");
  }

  @Test
  void eachReceiptTakesTheNextIdFromItsSource() {
    ReceiptRow first = allowReceipt(null);
    ReceiptRow second = allowReceipt(null);

    assertThat(first.receiptId()).isEqualTo(ID_1);
    assertThat(second.receiptId()).isEqualTo(ID_2);
    assertThat(second.payloadJson()).contains("\"receipt_id\":\"" + ID_2 + "\"");
  }

  @Test
  void thePayloadIsAlreadyCanonicalWhateverTheContextsMemberOrder() throws Exception {
    ObjectNode context = ReceiptFactory.context();
    context.put("zeta", 1);
    context.put("alpha", "h\u00e9llo \u2603");
    context.putObject("nested").put("b", true).put("a", false);

    ReceiptRow row = allowReceipt(context);

    assertThat(Canonicalizer.canonicalString(JSON.readTree(row.payloadJson())))
        .isEqualTo(row.payloadJson());
    assertThat(row.payloadJson())
        .contains(
            "\"context\":{\"alpha\":\"h\u00e9llo \u2603\",\"nested\":{\"a\":false,\"b\":true},"
                + "\"zeta\":1}");
  }

  @Test
  void thePayloadSignedAsItIsVerifiesWithTheIndependentVerifier() {
    ReceiptSigner signer = ReceiptSigner.fromSeed("ws_a/k1", new byte[32]);
    ReceiptRow row = allowReceipt(null);

    String value = signer.signatureValue(row.payloadJson().getBytes(StandardCharsets.UTF_8));
    String signed = SignedReceiptText.of(row.payloadJson(), signer.keyId(), value);
    ReceiptVerifier verifier =
        ReceiptVerifier.builder()
            .keysJson(
                "{\"workspace_id\":\"ws_a\",\"keys\":[{\"key_id\":\""
                    + signer.keyId()
                    + "\",\"alg\":\"Ed25519\",\"public_key\":\""
                    + signer.publicKeyBase64Url()
                    + "\",\"active_from\":\"2026-01-01T00:00:00Z\",\"active_until\":null}]}")
            .clock(Clock.fixed(T0.plusSeconds(60), ZoneOffset.UTC))
            .build();
    VerificationResult result = verifier.verify(signed);

    assertThat(result.valid()).as(result.message()).isTrue();
    assertThat(result.receiptId()).isEqualTo(ID_1);
    assertThat(row.withSignedJson(signed).signedJson()).isEqualTo(signed);
  }
}
