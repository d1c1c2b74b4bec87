package dev.agentauth.verifier.signing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.verifier.Canonicalizer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The signed receipt text: the canonical payload with the signer's signature object appended. */
class SignedReceiptTextTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private static ObjectNode receipt() {
    ObjectNode r = MAPPER.createObjectNode();
    r.put("version", "1.0");
    r.put("receipt_id", "01JTEXTTEST000000000000000");
    r.put("workspace_id", "ws_text");
    r.put("issued_at", "2026-11-22T10:15:30.123Z");
    r.put("decision", "allow");
    r.put("reason", "authorization_granted_scope_active");
    r.put("user_id", "u");
    r.put("agent_id", "a");
    r.put("scope", "email.send");
    r.put("resource", "doc:\"1\"");
    r.putObject("context").put("signature", "\",\"signature\":{}");
    r.put("authorization_id", "auth_1");
    r.put("policy_version", "2026-11-22.1");
    return r;
  }

  @Test
  void theTextIsThePayloadWithTheSignersSignatureLast() throws Exception {
    ReceiptSigner signer = ReceiptSigner.fromSeed("ws_text/k1", new byte[32]);
    ObjectNode unsigned = receipt();
    String payload = Canonicalizer.canonicalString(unsigned);
    ObjectNode signed = signer.sign(unsigned);
    String value = signed.get("signature").get("value").asText();
    String text = SignedReceiptText.of(payload, "ws_text/k1", value);
    // The same receipt as the signer's, its signature member last (not in canonical key order).
    assertThat(MAPPER.readTree(text)).isEqualTo(signed);
    assertThat(text).startsWith(payload.substring(0, payload.length() - 1) + ",\"signature\":{");
    assertThat(SignedReceiptText.isSignedFormOf(payload, text)).isTrue();
    assertThat(SignedReceiptText.signatureObjectOf(text))
        .isEqualTo(Canonicalizer.canonicalString(signed.get("signature")));
  }

  @Test
  void theTextOfEveryValidPublicVectorIsRebuiltFromItsPayloadAndSignature() throws Exception {
    Path vectors = Path.of("..", "..", "shared", "vectors");
    if (!Files.isDirectory(vectors)) {
      vectors = Path.of("..", "shared", "vectors");
    }
    assertThat(vectors).as("the public vectors beside the project").isDirectory();
    List<JsonNode> signedReceipts = new ArrayList<>();
    try (var files = Files.walk(vectors)) {
      for (Path p : files.filter(f -> f.toString().endsWith(".json")).toList()) {
        collect(MAPPER.readTree(Files.readString(p, StandardCharsets.UTF_8)), signedReceipts);
      }
    }
    int rebuilt = 0;
    for (JsonNode r : signedReceipts) {
      JsonNode sig = r.get("signature");
      if (!"Ed25519".equals(sig.path("alg").asText(null))
          || !sig.path("key_id").isTextual()
          || !sig.path("value").isTextual()
          || sig.size() != 3) {
        continue;
      }
      ObjectNode unsigned = ((ObjectNode) r).deepCopy();
      unsigned.remove("signature");
      String payload;
      try {
        payload = Canonicalizer.canonicalString(unsigned);
      } catch (RuntimeException notCanonicalizable) {
        continue; // an invalid vector; nothing is signed over it
      }
      String text =
          SignedReceiptText.of(payload, sig.get("key_id").asText(), sig.get("value").asText());
      assertThat(MAPPER.readTree(text)).isEqualTo(r);
      assertThat(SignedReceiptText.isSignedFormOf(payload, text)).isTrue();
      rebuilt++;
    }
    assertThat(rebuilt).as("signed receipts found in the vectors").isGreaterThan(10);
  }

  @Test
  void aTextThatIsNotThePayloadWithAMemberAppendedIsRefused() {
    String payload = "{\"a\":1}";
    assertThat(SignedReceiptText.isSignedFormOf(payload, "{\"a\":1,\"signature\":{\"v\":1}}"))
        .isTrue();
    assertThat(SignedReceiptText.isSignedFormOf(payload, "{\"a\":2,\"signature\":{\"v\":1}}"))
        .isFalse();
    assertThat(SignedReceiptText.isSignedFormOf(payload, "{\"a\":1,\"signature\":1}")).isFalse();
    assertThat(SignedReceiptText.isSignedFormOf(payload, "{\"a\":1}")).isFalse();
    assertThat(SignedReceiptText.signatureObjectOf("{\"a\":1}")).isNull();
  }

  /** Every object holding a {@code signature} object member, anywhere in a vectors file. */
  private static void collect(JsonNode n, List<JsonNode> out) {
    if (n.isObject()) {
      if (n.path("signature").isObject() && n.has("receipt_id")) {
        out.add(n);
        return;
      }
      n.forEach(c -> collect(c, out));
    } else if (n.isArray()) {
      n.forEach(c -> collect(c, out));
    }
  }
}
