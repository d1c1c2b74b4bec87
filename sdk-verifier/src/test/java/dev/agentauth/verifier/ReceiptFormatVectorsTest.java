package dev.agentauth.verifier;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The public Allowly receipt-format 1.0.0-draft.6 vectors (see resources/vectors/README.md). */
class ReceiptFormatVectorsTest {

  private static final JsonNode VECTORS = Fixtures.vectors();
  private static final ReceiptVerifier VERIFIER = Fixtures.vectorVerifier();

  /** The step that must reject each {@code expected_reason} of the vector file. */
  private static final Map<String, VerificationStep> STEP_FOR_REASON =
      Map.ofEntries(
          Map.entry("signature verification failed", VerificationStep.SIGNATURE),
          Map.entry("no public key found", VerificationStep.KEY_NOT_FOUND),
          Map.entry("unsupported version", VerificationStep.VERSION),
          Map.entry("unknown top-level fields", VerificationStep.SCHEMA),
          Map.entry("missing top-level fields", VerificationStep.SCHEMA),
          Map.entry("action receipt must have decision in", VerificationStep.PAIRING),
          Map.entry("both 'scope' and 'event'", VerificationStep.SCHEMA),
          Map.entry("neither 'scope' nor 'event'", VerificationStep.SCHEMA),
          Map.entry("event must be one of", VerificationStep.SCHEMA),
          Map.entry("must have decision", VerificationStep.PAIRING),
          Map.entry("must have non-null authorization_id", VerificationStep.SCHEMA),
          Map.entry("must have null resource", VerificationStep.SCHEMA),
          Map.entry("policy_eval must be absent on event receipts", VerificationStep.SCHEMA),
          Map.entry("policy_eval has unknown fields", VerificationStep.SCHEMA),
          Map.entry("policy_eval missing fields", VerificationStep.SCHEMA),
          Map.entry("policy_eval.matched_condition missing fields", VerificationStep.SCHEMA),
          Map.entry("policy_eval.matched_condition has unknown fields", VerificationStep.SCHEMA),
          Map.entry("policy_eval.field_value must be", VerificationStep.SCHEMA),
          Map.entry("safe range", VerificationStep.SCHEMA),
          Map.entry("RFC 3339 timestamp with timezone", VerificationStep.SCHEMA),
          Map.entry("base64url", VerificationStep.SCHEMA),
          Map.entry("requires an event receipt", VerificationStep.PAIRING));

  static Stream<Arguments> shouldVerify() {
    return cases("should_verify");
  }

  static Stream<Arguments> shouldReject() {
    return cases("should_reject");
  }

  private static Stream<Arguments> cases(String group) {
    List<Arguments> out = new ArrayList<>();
    for (JsonNode v : VECTORS.get(group)) {
      out.add(Arguments.of(v.get("name").asText(), v));
    }
    return out.stream();
  }

  @Test
  void vectorFileHoldsSixteenValidAndTwentyThreeInvalidReceipts() {
    assertThat(VECTORS.get("spec_version").asText()).isEqualTo("1.0.0-draft.6");
    assertThat(VECTORS.get("should_verify")).hasSize(16);
    assertThat(VECTORS.get("should_reject")).hasSize(23);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("shouldVerify")
  void everyShouldVerifyReceiptIsAccepted(String name, JsonNode vector) {
    JsonNode receipt = vector.get("receipt");
    String text = Fixtures.json(receipt);

    assertThat(VERIFIER.verify(text))
        .as(name)
        .extracting(VerificationResult::valid)
        .isEqualTo(true);
    assertThat(VERIFIER.verify(text.getBytes(StandardCharsets.UTF_8)).valid()).isTrue();
    VerificationResult fromTree = VERIFIER.verify(receipt);
    assertThat(fromTree.valid()).as(fromTree.message()).isTrue();
    assertThat(fromTree.failedStep()).isNull();
    assertThat(fromTree.receiptId()).isEqualTo(receipt.get("receipt_id").asText());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("shouldReject")
  void everyShouldRejectReceiptIsRejectedAtTheStepItsReasonNames(String name, JsonNode vector) {
    String reason = vector.get("expected_reason").asText();
    assertThat(STEP_FOR_REASON).as("a step is known for %s", reason).containsKey(reason);
    String text = Fixtures.json(vector.get("receipt"));

    VerificationResult result = VERIFIER.verify(text);

    assertThat(result.valid()).isFalse();
    assertThat(result.failedStep()).as(result.message()).isEqualTo(STEP_FOR_REASON.get(reason));
    assertThat(result.message()).contains(reason);
    assertThat(VERIFIER.verify(vector.get("receipt"))).isEqualTo(result);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("shouldVerify")
  void signingPayloadOfEveryValidVectorVerifiesUnderThePublishedKey(String name, JsonNode vector)
      throws Exception {
    // The canonicalizer alone reproduces the signed bytes (independent of ReceiptVerifier).
    com.fasterxml.jackson.databind.node.ObjectNode receipt =
        (com.fasterxml.jackson.databind.node.ObjectNode) vector.get("receipt");
    byte[] payload = Canonicalizer.signingPayload(receipt);
    byte[] signature = Base64Url.decode(receipt.get("signature").get("value").asText());
    byte[] key =
        Base64Url.decode(VECTORS.get("public_keys").get("keys").get(0).get("public_key").asText());

    assertThat(
            new org.bouncycastle.crypto.params.Ed25519PublicKeyParameters(key)
                .verify(
                    org.bouncycastle.math.ec.rfc8032.Ed25519.Algorithm.Ed25519,
                    null,
                    payload,
                    0,
                    payload.length,
                    signature,
                    0))
        .as(name)
        .isTrue();
  }
}
