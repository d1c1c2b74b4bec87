package dev.agentauth.verifier;

import static dev.agentauth.verifier.Fixtures.K0;
import static dev.agentauth.verifier.Fixtures.K1;
import static dev.agentauth.verifier.Fixtures.NOW;
import static dev.agentauth.verifier.Fixtures.json;
import static dev.agentauth.verifier.Fixtures.scopeReceipt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.verifier.signing.ReceiptSigner;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;
import org.assertj.core.api.AbstractObjectAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** One receipt per step, crafted (and signed) so that only the intended defect fails. */
class VerificationStepsTest {

  private final ReceiptVerifier verifier = Fixtures.verifier();

  private static ObjectNode edit(ObjectNode receipt, Consumer<ObjectNode> change) {
    change.accept(receipt);
    return receipt;
  }

  /** Signs with K1, or (no canonical form) borrows a well-formed signature member. */
  private static ObjectNode signIfPossible(ObjectNode receipt) {
    try {
      return K1.sign(receipt);
    } catch (CanonicalizationException e) {
      receipt.set("signature", K1.sign(scopeReceipt()).get("signature"));
      return receipt;
    }
  }

  private VerificationResult verify(ObjectNode receipt) {
    VerificationResult fromText = verifier.verify(json(receipt));
    assertThat(verifier.verify(receipt)).as("tree and text agree").isEqualTo(fromText);
    assertThat(verifier.verify(json(receipt).getBytes(StandardCharsets.UTF_8)))
        .as("bytes and text agree")
        .isEqualTo(fromText);
    return fromText;
  }

  private static void assertValid(VerificationResult result) {
    assertThat(result.valid()).as(result.message()).isTrue();
    assertThat(result.failedStep()).isNull();
  }

  private static AbstractObjectAssert<?, VerificationResult> assertFails(
      VerificationResult result, VerificationStep step, String messagePart) {
    assertThat(result.valid()).isFalse();
    assertThat(result.failedStep()).as(result.message()).isEqualTo(step);
    assertThat(result.message()).contains(messagePart);
    return assertThat(result);
  }

  // ---- valid receipts -------------------------------------------------------------------------

  @Test
  void validScopeReceiptVerifiesAndNamesItsKey() {
    VerificationResult result = verify(K1.sign(scopeReceipt()));

    assertValid(result);
    assertThat(result.receiptId()).isEqualTo("01JFIXTURESCOPE00000000000");
    assertThat(result.message()).contains("fixture/k1");
  }

  @Test
  void validEventReceiptsVerify() {
    assertValid(verify(K1.sign(Fixtures.createReceipt())));
    assertValid(verify(K1.sign(Fixtures.revokeReceipt())));
    assertValid(verify(K1.sign(Fixtures.resolveReceipt())));
    assertValid(
        verify(
            K1.sign(
                edit(Fixtures.resolveReceipt(), r -> r.put("decision", "escalation_rejected")))));
  }

  @ParameterizedTest
  @ValueSource(strings = {"allow", "deny", "confirm", "escalate"})
  void scopeReceiptsMayCarryEveryScopeDecision(String decision) {
    assertValid(verify(K1.sign(edit(scopeReceipt(), r -> r.put("decision", decision)))));
  }

  @Test
  void nullUserAgentResourceAndAuthorizationAreAcceptedOnScopeReceipts() {
    ObjectNode r =
        edit(
            scopeReceipt(),
            x -> {
              x.put("decision", "deny");
              x.putNull("user_id");
              x.putNull("agent_id");
              x.putNull("resource");
              x.putNull("authorization_id");
            });
    assertValid(verify(K1.sign(r)));
  }

  // ---- PARSE ----------------------------------------------------------------------------------

  @ParameterizedTest
  @ValueSource(strings = {"{not json", "", "   ", "{\"a\":", "\"version\""})
  void textThatIsNotAJsonObjectFailsParse(String text) {
    VerificationResult result = verifier.verify(text);

    assertThat(result.failedStep()).isEqualTo(VerificationStep.PARSE);
    assertThat(result.receiptId()).isNull();
  }

  @ParameterizedTest
  @ValueSource(strings = {"[]", "null", "42", "true", "[{\"version\":\"1.0\"}]"})
  void jsonValuesOtherThanObjectsFailParse(String text) {
    assertFails(verifier.verify(text), VerificationStep.PARSE, "must be a JSON object");
  }

  @Test
  void duplicateMemberNamesFailParse() {
    String text = json(K1.sign(scopeReceipt()));
    String top =
        text.replaceFirst("\\{\"version\":\"1.0\",", "{\"version\":\"1.0\",\"version\":\"1.0\",");
    String nested =
        text.replace("\"session_id\":\"sess_1\"", "\"session_id\":\"a\",\"session_id\":\"b\"");

    assertFails(verifier.verify(top), VerificationStep.PARSE, "Duplicate field 'version'");
    assertFails(verifier.verify(nested), VerificationStep.PARSE, "Duplicate field 'session_id'");
  }

  @Test
  void trailingContentAfterTheObjectFailsParse() {
    String text = json(K1.sign(scopeReceipt()));

    assertThat(verifier.verify(text + " {}").failedStep()).isEqualTo(VerificationStep.PARSE);
    assertThat(verifier.verify(text + "x").failedStep()).isEqualTo(VerificationStep.PARSE);
    assertValid(verifier.verify("\n " + text + " \n"));
  }

  // ---- VERSION --------------------------------------------------------------------------------

  @Test
  void versionOtherThan1Point0FailsVersion() {
    ObjectNode r = K1.sign(edit(scopeReceipt(), x -> x.put("version", "1.1")));

    assertFails(verify(r), VerificationStep.VERSION, "unsupported version \"1.1\"");
  }

  @Test
  void numericOrMissingVersionFailsVersion() {
    assertFails(
        verify(K1.sign(edit(scopeReceipt(), x -> x.put("version", 1)))),
        VerificationStep.VERSION,
        "unsupported version number 1");
    assertFails(
        verify(K1.sign(edit(scopeReceipt(), x -> x.remove("version")))),
        VerificationStep.VERSION,
        "missing");
  }

  // ---- SCHEMA ---------------------------------------------------------------------------------

  @ParameterizedTest
  @ValueSource(
      strings = {
        "receipt_id",
        "workspace_id",
        "issued_at",
        "decision",
        "reason",
        "user_id",
        "agent_id",
        "resource",
        "context",
        "authorization_id",
        "policy_version"
      })
  void everyRequiredMemberMissingFailsSchema(String member) {
    ObjectNode r = K1.sign(edit(scopeReceipt(), x -> x.remove(member)));

    assertFails(verify(r), VerificationStep.SCHEMA, "missing top-level fields: [" + member + "]");
  }

  @Test
  void missingSignatureFailsSchema() {
    assertFails(
        verify(scopeReceipt()), VerificationStep.SCHEMA, "missing top-level fields: [signature]");
  }

  @Test
  void unknownTopLevelMemberFailsSchema() {
    ObjectNode r = K1.sign(edit(scopeReceipt(), x -> x.put("note", "signed but unknown")));

    assertFails(verify(r), VerificationStep.SCHEMA, "unknown top-level fields: [note]");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "receipt_id       | 1        | receipt_id must be a string",
        "workspace_id     | null     | workspace_id must be a string",
        "issued_at        | 17       | issued_at must be a string",
        "decision         | null     | decision must be a string",
        "reason           | true     | reason must be a string",
        "user_id          | 5        | user_id must be a string or null",
        "agent_id         | {}       | agent_id must be a string or null",
        "scope            | null     | scope must be a string",
        "resource         | []       | resource must be a string or null",
        "authorization_id | false    | authorization_id must be a string or null",
        "policy_version   | 20261121 | policy_version must be a string",
        "context          | \"x\"    | context must be an object",
        "context          | null     | context must be an object",
        "context          | []       | context must be an object",
        "signature        | \"sig\"  | signature must be an object"
      })
  void memberOfTheWrongTypeFailsSchema(String member, String valueJson, String message) {
    ObjectNode r = K1.sign(edit(scopeReceipt(), x -> x.set(member, Fixtures.parse(valueJson))));
    if (member.equals("signature")) {
      r.set("signature", Fixtures.parse(valueJson));
    }

    assertFails(verify(r), VerificationStep.SCHEMA, message);
  }

  @Test
  void bothScopeAndEventFailSchema() {
    ObjectNode r = K1.sign(edit(scopeReceipt(), x -> x.put("event", "authorization.create")));

    assertFails(verify(r), VerificationStep.SCHEMA, "both 'scope' and 'event'");
  }

  @Test
  void neitherScopeNorEventFailsSchema() {
    ObjectNode r = K1.sign(edit(scopeReceipt(), x -> x.remove("scope")));

    assertFails(verify(r), VerificationStep.SCHEMA, "neither 'scope' nor 'event'");
  }

  @Test
  void unknownEventFailsSchema() {
    ObjectNode r =
        K1.sign(edit(Fixtures.createReceipt(), x -> x.put("event", "authorization.update")));

    assertFails(verify(r), VerificationStep.SCHEMA, "event must be one of");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "2026-06-01T11:00:00",
        "2026-06-01T11:00:00.000",
        "2026-06-01 11:00:00Z",
        "2026-06-01",
        "2026-02-30T00:00:00Z",
        "2025-02-29T00:00:00Z",
        "2026-13-01T00:00:00Z",
        "2026-06-01T24:00:00Z",
        "2026-06-01T11:60:00Z",
        "2026-06-01T11:00:60Z",
        "2026-06-01T11:00:00.Z",
        "2026-06-01T11:00:00+0100",
        "2026-06-01T11:00:00+01",
        "2026-06-01T11:00:00+24:00",
        "2026-6-01T11:00:00Z",
        "2026-06-01T11:00:00ZZ",
        "+2026-06-01T11:00:00Z",
        "1780311600",
        ""
      })
  void issuedAtThatIsNotAFullRfc3339InstantFailsSchema(String issuedAt) {
    ObjectNode r = K1.sign(edit(scopeReceipt(), x -> x.put("issued_at", issuedAt)));

    assertFails(verify(r), VerificationStep.SCHEMA, "RFC 3339 timestamp with timezone");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "2026-06-01T11:00:00Z",
        "2026-06-01t11:00:00z",
        "2026-06-01T12:00:00+01:00",
        "2026-06-01T06:30:00-04:30",
        "2026-06-01T11:00:00.123456789Z",
        "2026-06-01T11:00:00.1234567891234Z",
        "2026-06-01T11:00:00-00:00",
        "2026-06-01T11:00:00.5Z"
      })
  void issuedAtInAnyFullRfc3339FormIsAccepted(String issuedAt) {
    assertValid(verify(K1.sign(edit(scopeReceipt(), x -> x.put("issued_at", issuedAt)))));
  }

  @Test
  void signatureWithAnExtraOrMissingMemberFailsSchema() {
    ObjectNode extra = K1.sign(scopeReceipt());
    ((ObjectNode) extra.get("signature")).put("created", "now");
    ObjectNode missing = K1.sign(scopeReceipt());
    ((ObjectNode) missing.get("signature")).remove("key_id");
    ObjectNode nonString = K1.sign(scopeReceipt());
    ((ObjectNode) nonString.get("signature")).put("alg", 25519);

    assertFails(verify(extra), VerificationStep.SCHEMA, "signature has unknown fields: [created]");
    assertFails(verify(missing), VerificationStep.SCHEMA, "signature missing fields: [key_id]");
    assertFails(verify(nonString), VerificationStep.SCHEMA, "signature.alg must be a string");
  }

  @Test
  void paddedSignatureValueFailsSchema() {
    ObjectNode r = K1.sign(scopeReceipt());
    ObjectNode sig = (ObjectNode) r.get("signature");
    sig.put("value", sig.get("value").asText() + "==");

    assertFails(verify(r), VerificationStep.SCHEMA, "base64url")
        .extracting(VerificationResult::message)
        .asString()
        .contains("padding");
  }

  @ParameterizedTest
  @CsvSource({
    "+, outside the base64url alphabet",
    "/, outside the base64url alphabet",
    "' ', outside"
  })
  void signatureValueWithCharactersOutsideTheAlphabetFailsSchema(String c, String message) {
    ObjectNode r = K1.sign(scopeReceipt());
    ObjectNode sig = (ObjectNode) r.get("signature");
    String value = sig.get("value").asText();
    sig.put("value", value.substring(0, 10) + c + value.substring(11));

    assertFails(verify(r), VerificationStep.SCHEMA, message);
  }

  @Test
  void signatureValueNotDecodingToSixtyFourBytesFailsSchema() {
    ObjectNode r = K1.sign(scopeReceipt());
    ObjectNode sig = (ObjectNode) r.get("signature");
    String value = sig.get("value").asText();

    sig.put("value", value.substring(0, 84));
    assertFails(verify(r), VerificationStep.SCHEMA, "decodes to 63 bytes");
    sig.put("value", value + "AAAA");
    assertFails(verify(r), VerificationStep.SCHEMA, "decodes to 67 bytes");
    sig.put("value", value.substring(0, 85));
    assertFails(verify(r), VerificationStep.SCHEMA, "not a valid base64url length");
  }

  @Test
  void signatureValueWithNonZeroTrailingBitsFailsSchema() {
    ObjectNode r = K1.sign(scopeReceipt());
    ObjectNode sig = (ObjectNode) r.get("signature");
    String value = sig.get("value").asText();
    // 86 characters carry 516 bits for 512: the last character's low 4 bits must be zero.
    char last = value.charAt(85);
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    char altered = alphabet.charAt(alphabet.indexOf(last) | 1);
    sig.put("value", value.substring(0, 85) + altered);

    assertFails(verify(r), VerificationStep.SCHEMA, "non-zero trailing bits");
  }

  @Test
  void policyEvalInItsExactShapeIsAcceptedOnScopeReceipts() {
    ObjectNode r =
        edit(
            scopeReceipt(),
            x ->
                x.set(
                    "policy_eval",
                    Fixtures.parse(
                        "{\"matched_condition\":{\"field\":\"f\",\"op\":\"in\",\"value\":[\"a\",1,true,null]},"
                            + "\"field_value\":\"a\"}")));

    assertValid(verify(K1.sign(r)));
    assertValid(
        verify(
            K1.sign(
                edit(
                    scopeReceipt(),
                    x ->
                        x.set(
                            "policy_eval",
                            Fixtures.parse("{\"matched_condition\":null,\"field_value\":7}"))))));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "[]                                                                  | policy_eval must be an object",
        "{\"matched_condition\":null}                                       | policy_eval missing fields: [field_value]",
        "{\"matched_condition\":null,\"field_value\":1,\"x\":1}              | policy_eval has unknown fields: [x]",
        "{\"matched_condition\":\"c\",\"field_value\":1}                     | policy_eval.matched_condition must be null or an object",
        "{\"matched_condition\":{\"field\":\"f\",\"value\":1},\"field_value\":1} | policy_eval.matched_condition missing fields: [op]",
        "{\"matched_condition\":{\"field\":\"f\",\"op\":\"eq\",\"value\":1,\"d\":1},\"field_value\":1} | policy_eval.matched_condition has unknown fields: [d]",
        "{\"matched_condition\":{\"field\":1,\"op\":\"eq\",\"value\":1},\"field_value\":1} | policy_eval.matched_condition.field must be a string",
        "{\"matched_condition\":{\"field\":\"f\",\"op\":null,\"value\":1},\"field_value\":1} | policy_eval.matched_condition.op must be a string",
        "{\"matched_condition\":{\"field\":\"f\",\"op\":\"in\",\"value\":[[1]]},\"field_value\":1} | policy_eval.matched_condition.value must be",
        "{\"matched_condition\":{\"field\":\"f\",\"op\":\"eq\",\"value\":{}},\"field_value\":1} | policy_eval.matched_condition.value must be",
        "{\"matched_condition\":null,\"field_value\":{}}                    | policy_eval.field_value must be",
        "{\"matched_condition\":null,\"field_value\":[1]}                   | policy_eval.field_value must be",
        "{\"matched_condition\":null,\"field_value\":9007199254740992}      | policy_eval.field_value must be"
      })
  void policyEvalInAnyOtherShapeFailsSchema(String policyEval, String message) {
    ObjectNode r = edit(scopeReceipt(), x -> x.set("policy_eval", Fixtures.parse(policyEval)));
    ObjectNode signed = signIfPossible(r);

    assertFails(verify(signed), VerificationStep.SCHEMA, message);
  }

  @Test
  void policyEvalOnAnEventReceiptFailsSchema() {
    ObjectNode r =
        K1.sign(
            edit(
                Fixtures.createReceipt(),
                x ->
                    x.set(
                        "policy_eval",
                        Fixtures.parse("{\"matched_condition\":null,\"field_value\":null}"))));

    assertFails(verify(r), VerificationStep.SCHEMA, "policy_eval must be absent on event receipts");
  }

  @ParameterizedTest
  @ValueSource(strings = {"authorization.create", "authorization.revoke", "escalation.resolve"})
  void eventReceiptWithNullAuthorizationIdFailsSchema(String event) {
    ObjectNode r =
        event.equals("authorization.create")
            ? Fixtures.createReceipt()
            : event.equals("authorization.revoke")
                ? Fixtures.revokeReceipt()
                : Fixtures.resolveReceipt();
    r.putNull("authorization_id");

    assertFails(verify(K1.sign(r)), VerificationStep.SCHEMA, "must have non-null authorization_id");
  }

  @Test
  void lifecycleEventReceiptWithAResourceFailsSchemaButResolveMayCarryOne() {
    assertFails(
        verify(K1.sign(edit(Fixtures.createReceipt(), x -> x.put("resource", "r")))),
        VerificationStep.SCHEMA,
        "authorization.create receipt must have null resource");
    assertFails(
        verify(K1.sign(edit(Fixtures.revokeReceipt(), x -> x.put("resource", "r")))),
        VerificationStep.SCHEMA,
        "authorization.revoke receipt must have null resource");
    assertValid(verify(K1.sign(Fixtures.resolveReceipt())));
  }

  @Test
  void unsafeIntegerAnywhereFailsSchemaNamingItsPath() {
    ObjectNode r = K1.sign(scopeReceipt());
    ((ObjectNode) r.get("context").get("client_context")).put("attempt", 9007199254740992L);

    assertFails(verify(r), VerificationStep.SCHEMA, "$.context.client_context.attempt")
        .extracting(VerificationResult::message)
        .asString()
        .contains("safe range");
  }

  @Test
  void floatAnywhereFailsSchema() {
    String text = json(K1.sign(scopeReceipt())).replace("\"attempt\":2", "\"attempt\":2.0");

    assertFails(verifier.verify(text), VerificationStep.SCHEMA, "not an integer");
  }

  @Test
  void loneSurrogateEscapeInAStringFailsSchema() {
    String text = json(K1.sign(scopeReceipt())).replace("sess_1", "sess_\\ud800");

    assertFails(verifier.verify(text), VerificationStep.SCHEMA, "lone surrogate");
  }

  // ---- PAIRING --------------------------------------------------------------------------------

  @ParameterizedTest
  @ValueSource(
      strings = {
        "authorization_granted",
        "authorization_revoked",
        "escalation_approved",
        "escalation_rejected"
      })
  void scopeReceiptWithAnEventDecisionFailsPairing(String decision) {
    ObjectNode r = K1.sign(edit(scopeReceipt(), x -> x.put("decision", decision)));

    assertFails(verify(r), VerificationStep.PAIRING, "requires an event receipt");
  }

  @Test
  void scopeReceiptWithAnUnknownDecisionFailsPairing() {
    ObjectNode r = K1.sign(edit(scopeReceipt(), x -> x.put("decision", "maybe")));

    assertFails(verify(r), VerificationStep.PAIRING, "action receipt must have decision in");
  }

  @Test
  void eventReceiptsWithTheWrongDecisionFailPairing() {
    assertFails(
        verify(K1.sign(edit(Fixtures.createReceipt(), x -> x.put("decision", "allow")))),
        VerificationStep.PAIRING,
        "authorization.create receipt must have decision \"authorization_granted\"");
    assertFails(
        verify(
            K1.sign(
                edit(Fixtures.revokeReceipt(), x -> x.put("decision", "authorization_granted")))),
        VerificationStep.PAIRING,
        "authorization.revoke receipt must have decision \"authorization_revoked\"");
    assertFails(
        verify(K1.sign(edit(Fixtures.resolveReceipt(), x -> x.put("decision", "deny")))),
        VerificationStep.PAIRING,
        "escalation.resolve receipt must have decision");
  }

  // ---- ALGORITHM ------------------------------------------------------------------------------

  @ParameterizedTest
  @ValueSource(strings = {"EdDSA", "ed25519", "Ed448", ""})
  void algorithmOtherThanEd25519FailsAlgorithm(String alg) {
    ObjectNode r = K1.sign(scopeReceipt());
    ((ObjectNode) r.get("signature")).put("alg", alg);

    assertFails(verify(r), VerificationStep.ALGORITHM, "signature.alg must be \"Ed25519\"");
  }

  // ---- TIMESTAMP ------------------------------------------------------------------------------

  @Test
  void issuedAtExactlyFiveMinutesAheadOfTheClockIsAccepted() {
    String atLimit = NOW.plusSeconds(300).toString();

    assertValid(verify(K1.sign(edit(scopeReceipt(), x -> x.put("issued_at", atLimit)))));
    assertValid(
        verify(
            K1.sign(edit(scopeReceipt(), x -> x.put("issued_at", "2026-06-01T13:05:00+01:00")))));
  }

  @Test
  void issuedAtFiveMinutesAndOneMillisecondAheadFailsTimestamp() {
    String beyond = "2026-06-01T12:05:00.001Z";

    assertFails(
        verify(K1.sign(edit(scopeReceipt(), x -> x.put("issued_at", beyond)))),
        VerificationStep.TIMESTAMP,
        "more than 5 minutes ahead");
  }

  // ---- WORKSPACE ------------------------------------------------------------------------------

  @Test
  void receiptOfAnotherWorkspaceFailsWorkspace() {
    ObjectNode r = K1.sign(edit(scopeReceipt(), x -> x.put("workspace_id", "ws_other")));

    assertFails(verify(r), VerificationStep.WORKSPACE, "\"ws_other\" does not match")
        .extracting(VerificationResult::message)
        .asString()
        .contains("ws_fixture");
  }

  // ---- KEY_NOT_FOUND --------------------------------------------------------------------------

  @Test
  void keyIdNotInTheKeysDocumentFailsKeyNotFound() {
    ObjectNode r = ReceiptSigner.fromSeed("fixture/k9", Fixtures.seed(9)).sign(scopeReceipt());

    assertFails(
        verify(r), VerificationStep.KEY_NOT_FOUND, "no public key found for key_id \"fixture/k9\"");
  }

  // ---- KEY_NOT_ACTIVE -------------------------------------------------------------------------

  @Test
  void issuedAtEqualToActiveFromIsAccepted() {
    assertValid(verify(K1.sign(edit(scopeReceipt(), x -> x.put("issued_at", Fixtures.K1_FROM)))));
    assertValid(verify(K0.sign(edit(scopeReceipt(), x -> x.put("issued_at", Fixtures.K0_FROM)))));
  }

  @Test
  void issuedAtBeforeActiveFromFailsKeyNotActive() {
    ObjectNode r =
        K1.sign(edit(scopeReceipt(), x -> x.put("issued_at", "2025-12-31T23:59:59.999Z")));

    assertFails(verify(r), VerificationStep.KEY_NOT_ACTIVE, "was not active");
  }

  @Test
  void issuedAtEqualToActiveUntilFailsKeyNotActive() {
    ObjectNode r = K0.sign(edit(scopeReceipt(), x -> x.put("issued_at", Fixtures.K0_UNTIL)));

    assertFails(verify(r), VerificationStep.KEY_NOT_ACTIVE, "fixture/k0");
  }

  @Test
  void retiredKeyStillVerifiesReceiptsFromItsWindow() {
    assertValid(
        verify(K0.sign(edit(scopeReceipt(), x -> x.put("issued_at", "2025-12-31T23:59:59.999Z")))));
  }

  // ---- SIGNATURE ------------------------------------------------------------------------------

  @Test
  void memberChangedAfterSigningFailsSignature() {
    ObjectNode r = K1.sign(scopeReceipt());
    r.put("reason", "changed_after_signing");

    assertFails(verify(r), VerificationStep.SIGNATURE, "signature verification failed");
  }

  @Test
  void signatureByAnUnpublishedKeyUnderAPublishedKeyIdFailsSignature() {
    assertFails(
        verify(Fixtures.STRANGER.sign(scopeReceipt())),
        VerificationStep.SIGNATURE,
        "signature verification failed");
  }

  @Test
  void signatureOfAnotherPublishedKeyFailsSignature() {
    ObjectNode r = K0.sign(scopeReceipt());
    ((ObjectNode) r.get("signature")).put("key_id", K1.keyId());

    assertFails(verify(r), VerificationStep.SIGNATURE, "signature verification failed");
  }

  // ---- ordering and API -----------------------------------------------------------------------

  @Test
  void theFirstFailingStepInOrderIsReported() {
    ObjectNode r =
        K1.sign(
            edit(
                scopeReceipt(),
                x -> {
                  x.put("workspace_id", "ws_other");
                  x.put("issued_at", "2027-01-01T00:00:00Z");
                }));
    ((ObjectNode) r.get("signature")).put("alg", "EdDSA").put("key_id", "nope");

    assertFails(verify(r), VerificationStep.ALGORITHM, "signature.alg");
  }

  @Test
  void verifyOrThrowPassesAValidReceipt() {
    assertThatCode(() -> verifier.verifyOrThrow(json(K1.sign(scopeReceipt()))))
        .doesNotThrowAnyException();
  }

  @Test
  void verifyOrThrowThrowsNamingTheFailedStep() {
    ObjectNode r = K1.sign(scopeReceipt());
    r.put("user_id", "someone_else");

    assertThatThrownBy(() -> verifier.verifyOrThrow(json(r)))
        .isInstanceOf(ReceiptVerificationException.class)
        .hasMessageContaining("01JFIXTURESCOPE00000000000")
        .hasMessageContaining("step SIGNATURE")
        .satisfies(
            e -> {
              ReceiptVerificationException ex = (ReceiptVerificationException) e;
              assertThat(ex.step()).isEqualTo(VerificationStep.SIGNATURE);
              assertThat(ex.receiptId()).isEqualTo("01JFIXTURESCOPE00000000000");
            });
  }

  @Test
  void resultRejectsInconsistentComponents() {
    assertThatThrownBy(() -> new VerificationResult(true, VerificationStep.SIGNATURE, "m", null))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new VerificationResult(false, null, "m", null))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void verifierReadsButNeverModifiesTheTree() {
    ObjectNode r = K1.sign(scopeReceipt());
    ObjectNode copy = r.deepCopy();

    verifier.verify(r);

    assertThat(r).isEqualTo(copy);
    assertThat(verifier.workspaceId()).isEqualTo("ws_fixture");
  }
}
