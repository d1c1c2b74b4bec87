package dev.agentauth.verifier.vectors;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentauth.verifier.Canonicalizer;
import dev.agentauth.verifier.VerificationResult;
import dev.agentauth.verifier.VerificationStep;
import dev.agentauth.verifier.signing.ReceiptSigner;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Base64;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The project's own receipt vectors, {@code docs/receipt-vectors.json}: the file is exactly what
 * {@link GenerateReceiptVectors} writes, every valid receipt verifies and has the stated canonical
 * form, every invalid one is rejected at its {@code expected_step}, and the file covers every
 * receipt kind and every verification step.
 *
 * <p>Run with {@code -DregenerateVectors=true} to rewrite the file from the generator.
 */
class OwnVectorsTest {

  /** The vector {@code docs/receipt-format.md} walks through as its worked example. */
  static final String WORKED_EXAMPLE = "allow_scope_active";

  static Stream<Arguments> verifying() {
    return ReceiptVectors.arguments(ReceiptVectors.verifying()).stream();
  }

  static Stream<Arguments> invalid() {
    return ReceiptVectors.arguments(ReceiptVectors.group("invalid")).stream();
  }

  @Test
  void committedFileIsExactlyWhatTheGeneratorWrites() throws IOException {
    String generated = GenerateReceiptVectors.render();
    if (Boolean.getBoolean("regenerateVectors")) {
      Files.writeString(ReceiptVectors.FILE, generated, UTF_8);
    }

    assertThat(Files.readString(ReceiptVectors.FILE, UTF_8))
        .as("docs/receipt-vectors.json is stale: regenerate it with -DregenerateVectors=true")
        .isEqualTo(generated);
  }

  @Test
  void publishedSeedsDeriveThePublishedKeys() {
    JsonNode file = ReceiptVectors.file();
    String[][] keys = {
      {"key_id", "key_seed_hex", "agentauth test vector key"},
      {"retired_key_id", "retired_key_seed_hex", "agentauth test vector key (retired)"}
    };
    for (String[] k : keys) {
      String keyId = file.get(k[0]).textValue();
      byte[] seed = HexFormat.of().parseHex(file.get(k[1]).textValue());

      assertThat(seed).as(k[1]).isEqualTo(GenerateReceiptVectors.sha256(k[2]));
      assertThat(ReceiptSigner.fromSeed(keyId, seed).publicKey())
          .as(keyId)
          .isEqualTo(ReceiptVectors.publicKey(keyId));
    }
    assertThat(file.get("key_id").textValue()).isEqualTo("ws_vectors/test-key-1");
    assertThat(file.get("public_keys").get("workspace_id").textValue()).isEqualTo("ws_vectors");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("verifying")
  void validReceiptHasTheStatedCanonicalFormAndVerifies(String name, JsonNode vector) {
    JsonNode receipt = vector.get("receipt");
    String canonical = vector.get("canonical").textValue();

    assertThat(Canonicalizer.canonicalString(ReceiptVectors.withoutSignature(receipt)))
        .isEqualTo(canonical);
    assertThat(Canonicalizer.signingPayload(ReceiptVectors.withoutSignature(receipt)))
        .isEqualTo(canonical.getBytes(UTF_8));

    VerificationResult fromText = ReceiptVectors.verifier().verify(ReceiptVectors.json(receipt));
    assertThat(fromText.valid()).as(fromText.toString()).isTrue();
    assertThat(fromText.receiptId()).isEqualTo(receipt.get("receipt_id").textValue());
    assertThat(ReceiptVectors.verifier().verify(receipt).valid()).isTrue();
    assertThat(
            ReceiptVectors.verifier().verify(ReceiptVectors.json(receipt).getBytes(UTF_8)).valid())
        .isTrue();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("verifying")
  void anIndependentEd25519AgreesWithEverySignature(String name, JsonNode vector) {
    JsonNode signature = vector.get("receipt").get("signature");
    String keyId = signature.get("key_id").textValue();
    byte[] message = vector.get("canonical").textValue().getBytes(UTF_8);
    byte[] value = Base64.getUrlDecoder().decode(signature.get("value").textValue());

    assertThat(ReceiptVectors.jdkVerify(ReceiptVectors.publicKey(keyId), message, value)).isTrue();
    assertThat(ReceiptVectors.jdkSign(ReceiptVectors.seed(keyId), message))
        .as("Ed25519 is deterministic: the JDK signer reproduces the signature")
        .isEqualTo(value);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalid")
  void invalidReceiptIsRejectedAtItsExpectedStep(String name, JsonNode vector) {
    VerificationStep expected = VerificationStep.valueOf(vector.get("expected_step").textValue());

    if (vector.has("receipt_text")) {
      String text = vector.get("receipt_text").textValue();
      assertThat(ReceiptVectors.verifier().verify(text).failedStep())
          .as(ReceiptVectors.verifier().verify(text).message())
          .isEqualTo(expected);
      assertThat(ReceiptVectors.verifier().verify(text.getBytes(UTF_8)).failedStep())
          .isEqualTo(expected);
    } else {
      JsonNode receipt = vector.get("receipt");
      VerificationResult fromText = ReceiptVectors.verifier().verify(ReceiptVectors.json(receipt));
      assertThat(fromText.failedStep()).as(fromText.message()).isEqualTo(expected);
      assertThat(ReceiptVectors.verifier().verify(receipt).failedStep()).isEqualTo(expected);
    }
  }

  @Test
  void validReceiptsCoverEveryDecisionReasonAndEventTheServerIssues() {
    Set<String> seen = new TreeSet<>();
    for (JsonNode v : ReceiptVectors.group("valid")) {
      JsonNode r = v.get("receipt");
      if (!v.get("source").textValue().equals("server")) {
        continue;
      }
      String kind = r.has("scope") ? "scope" : r.get("event").textValue();
      seen.add(kind + " " + r.get("decision").textValue() + " " + r.get("reason").textValue());
    }

    assertThat(seen)
        .containsExactlyInAnyOrder(
            "scope allow authorization_granted_scope_active",
            "scope allow authorization_granted_via_confirmation",
            "scope allow authorization_granted_via_escalation",
            "scope deny authorization_not_found",
            "scope deny authorization_revoked",
            "scope deny authorization_expired",
            "scope deny scope_not_authorized",
            "scope deny resource_tombstoned",
            "scope deny rate_limit_exceeded",
            "scope deny budget_exceeded",
            "scope deny escalation_rejected",
            "scope confirm scope_requires_user_confirmation",
            "scope escalate escalation_required",
            "authorization.create authorization_granted authorization_created",
            "authorization.revoke authorization_revoked authorization_revoked",
            "escalation.resolve escalation_approved escalation_approved",
            "escalation.resolve escalation_rejected escalation_rejected");
  }

  @Test
  void validReceiptsCoverEveryContextMemberTheServerWrites() {
    Set<String> members = new TreeSet<>();
    boolean notFoundWithNullParties = false;
    for (JsonNode v : ReceiptVectors.group("valid")) {
      JsonNode r = v.get("receipt");
      r.get("context").fieldNames().forEachRemaining(members::add);
      if (r.get("reason").textValue().equals("authorization_not_found")) {
        notFoundWithNullParties = r.get("user_id").isNull() && r.get("agent_id").isNull();
      }
    }

    assertThat(members)
        .contains(
            "client_context",
            "session_id",
            "budget",
            "confirmation_authorization_id",
            "agentauth_confirmation",
            "escalation_id",
            "metadata",
            "scopes",
            "expires_at",
            "requires_confirm_for",
            "requires_escalation_for",
            "escalation_targets",
            "budget_limit_micros",
            "bundle_id",
            "revoked_by",
            "notes",
            "scope",
            "resolved_by",
            "note");
    assertThat(notFoundWithNullParties).isTrue();
  }

  @Test
  void invalidReceiptsExerciseEveryVerificationStep() {
    Set<VerificationStep> steps = EnumSet.noneOf(VerificationStep.class);
    for (JsonNode v : ReceiptVectors.group("invalid")) {
      steps.add(VerificationStep.valueOf(v.get("expected_step").textValue()));
    }

    assertThat(steps).containsExactlyInAnyOrder(VerificationStep.values());
  }

  @Test
  void bothKeysSignValidReceipts() {
    Set<String> keyIds = new TreeSet<>();
    for (JsonNode v : ReceiptVectors.group("valid")) {
      keyIds.add(v.get("receipt").get("signature").get("key_id").textValue());
    }

    assertThat(keyIds).containsExactly("ws_vectors/test-key-0", "ws_vectors/test-key-1");
  }

  @Test
  void vectorNamesAreUniqueAcrossGroups() {
    List<String> names = new ArrayList<>();
    for (String group : new String[] {"valid", "chain_only", "invalid"}) {
      ReceiptVectors.group(group).forEach(v -> names.add(v.get("name").textValue()));
    }

    assertThat(names).doesNotHaveDuplicates();
    assertThat(ReceiptVectors.receiptTexts()).hasSize(names.size());
  }

  @Test
  void formatDocumentShowsTheWorkedExampleAndNamesEveryStep() throws IOException {
    String doc = Files.readString(ReceiptVectors.FORMAT_DOC, UTF_8);
    JsonNode example =
        ReceiptVectors.group("valid").stream()
            .filter(v -> v.get("name").textValue().equals(WORKED_EXAMPLE))
            .findFirst()
            .orElseThrow();

    assertThat(doc)
        .contains(example.get("canonical").textValue())
        .contains(example.get("receipt").get("signature").get("value").textValue())
        .contains(example.get("receipt").get("receipt_id").textValue())
        .contains(ReceiptVectors.file().get("key_seed_hex").textValue())
        .contains(
            Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString(ReceiptVectors.publicKey("ws_vectors/test-key-1")))
        .contains("receipt-vectors.json");
    for (VerificationStep step : VerificationStep.values()) {
      assertThat(doc).as("names step " + step).contains("`" + step.name() + "`");
    }
  }
}
