package dev.agentauth.verifier;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Garbage in, an invalid result out: no exception ever escapes {@code verify}. */
class MalformedInputTest {

  private final ReceiptVerifier verifier = Fixtures.verifier();

  @Test
  void javaNullIsAParseFailure() {
    assertThat(verifier.verify((String) null).failedStep()).isEqualTo(VerificationStep.PARSE);
    assertThat(verifier.verify((byte[]) null).failedStep()).isEqualTo(VerificationStep.PARSE);
    assertThat(verifier.verify((JsonNode) null).failedStep()).isEqualTo(VerificationStep.PARSE);
  }

  @Test
  void jsonNullEmptyArrayAndScalarsAreParseFailures() {
    for (String text : new String[] {"null", "[]", "{}x", "1", "\"\"", "", "\uFEFF"}) {
      VerificationResult result = verifier.verify(text);
      assertThat(result.failedStep()).as(text).isEqualTo(VerificationStep.PARSE);
    }
  }

  @Test
  void aFileNameGivenAsReceiptTextIsAParseFailureNamingTheFileForm() {
    VerificationResult result = verifier.verify("receipts/r1.json");

    assertThat(result.failedStep()).isEqualTo(VerificationStep.PARSE);
    assertThat(result.message())
        .contains("expected the receipt's JSON text, found \"receipts/r1.json\"")
        .contains("looks like a file name")
        .contains("verify(Files.readAllBytes(Path.of(\"receipts/r1.json\")))");
  }

  @Test
  void textThatIsNeitherJsonNorAFileNameGetsNoFileHint() {
    VerificationResult result = verifier.verify("01JDQ3Z8W4K2M7N9P1Q3R5S7T9");

    assertThat(result.failedStep()).isEqualTo(VerificationStep.PARSE);
    assertThat(result.message())
        .startsWith("receipt is not valid JSON")
        .doesNotContain("file name");
  }

  @Test
  void emptyObjectFailsAtVersion() {
    assertThat(verifier.verify("{}").failedStep()).isEqualTo(VerificationStep.VERSION);
  }

  @Test
  void randomBytesNeverThrow() {
    Random random = new Random(1);
    for (int i = 0; i < 20_000; i++) {
      byte[] bytes = new byte[random.nextInt(64)];
      random.nextBytes(bytes);
      if (i % 2 == 0 && bytes.length > 0) {
        bytes[0] = '{';
      }

      assertThat(verifier.verify(bytes).valid()).isFalse();
      assertThat(verifier.verify(new String(bytes, StandardCharsets.ISO_8859_1)).valid()).isFalse();
    }
  }

  @Test
  void randomlyCorruptedReceiptsNeverThrowAndNeverVerify() {
    byte[] valid =
        Fixtures.json(Fixtures.K1.sign(Fixtures.scopeReceipt())).getBytes(StandardCharsets.UTF_8);
    Random random = new Random(2);
    for (int i = 0; i < 5_000; i++) {
      byte[] bytes = valid.clone();
      for (int flips = 1 + random.nextInt(3); flips > 0; flips--) {
        bytes[random.nextInt(bytes.length)] = (byte) random.nextInt(256);
      }
      if (java.util.Arrays.equals(bytes, valid)) {
        continue;
      }

      VerificationResult result = verifier.verify(bytes);

      assertThat(result).isNotNull();
      assertThat(result.valid()).as(new String(bytes, StandardCharsets.UTF_8)).isFalse();
    }
  }

  @Test
  void deeplyNestedTextIsAParseFailure() {
    assertThat(verifier.verify("[".repeat(100_000)).failedStep()).isEqualTo(VerificationStep.PARSE);
    assertThat(verifier.verify("{\"a\":".repeat(50_000) + "1" + "}".repeat(50_000)).failedStep())
        .isEqualTo(VerificationStep.PARSE);
  }

  @Test
  void deeplyNestedTreeIsASchemaFailureNotAStackOverflow() {
    ObjectNode receipt = Fixtures.K1.sign(Fixtures.scopeReceipt());
    ArrayNode deep = ((ObjectNode) receipt.get("context")).putArray("deep");
    for (int i = 0; i < 20_000; i++) {
      deep = deep.addArray();
    }

    VerificationResult result = verifier.verify(receipt);

    assertThat(result.failedStep()).isEqualTo(VerificationStep.SCHEMA);
    assertThat(result.message()).contains("nesting deeper than");
  }

  @Test
  void nonUtf8BytesAreParseFailures() {
    String text = Fixtures.json(Fixtures.K1.sign(Fixtures.scopeReceipt()));

    assertThat(verifier.verify(text.getBytes(StandardCharsets.UTF_16BE)).failedStep())
        .isEqualTo(VerificationStep.PARSE);
    assertThat(verifier.verify(text.getBytes(StandardCharsets.UTF_16)).failedStep())
        .isEqualTo(VerificationStep.PARSE);
    assertThat(verifier.verify(text.getBytes(StandardCharsets.ISO_8859_1)).valid()).isTrue();
    byte[] broken = text.replace("sess_1", "sess_\u00e9").getBytes(StandardCharsets.ISO_8859_1);
    assertThat(verifier.verify(broken).failedStep()).isEqualTo(VerificationStep.PARSE);
  }

  @Test
  void hugeNumbersAndStrangeTokensAreInvalidNotThrown() {
    String text = Fixtures.json(Fixtures.K1.sign(Fixtures.scopeReceipt()));
    for (String replacement :
        new String[] {"1" + "0".repeat(5_000), "NaN", "Infinity", "1e999999", "-", "0x10", "01"}) {
      VerificationResult result =
          verifier.verify(text.replace("\"attempt\":2", "\"attempt\":" + replacement));

      assertThat(result.valid()).as(replacement).isFalse();
      assertThat(result.failedStep()).isIn(VerificationStep.PARSE, VerificationStep.SCHEMA);
    }
  }

  @Test
  void wrongTypesEverywhereNeverThrow() {
    String[] values = {"null", "1", "-1.5", "true", "\"s\"", "[]", "{}", "[null]", "{\"a\":[{}]}"};
    ObjectNode base = Fixtures.K1.sign(Fixtures.scopeReceipt());
    for (String member :
        new String[] {
          "version",
          "receipt_id",
          "issued_at",
          "signature",
          "context",
          "decision",
          "scope",
          "policy_eval"
        }) {
      for (String value : values) {
        ObjectNode r = base.deepCopy();
        r.set(member, Fixtures.parse(value));
        VerificationResult result = verifier.verify(r);

        assertThat(result.valid()).as(member + "=" + value).isFalse();
      }
    }
    for (String value : values) {
      ObjectNode r = base.deepCopy();
      ((ObjectNode) r.get("signature")).set("value", Fixtures.parse(value));
      assertThat(verifier.verify(r).failedStep()).isEqualTo(VerificationStep.SCHEMA);
    }
  }
}
