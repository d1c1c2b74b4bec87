package dev.agentauth.verifier.signing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.verifier.CanonicalizationException;
import dev.agentauth.verifier.Canonicalizer;
import dev.agentauth.verifier.ReceiptVerifier;
import dev.agentauth.verifier.VerificationResult;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.math.ec.rfc8032.Ed25519;
import org.junit.jupiter.api.Test;

class ReceiptSignerTest {

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final HexFormat HEX = HexFormat.of();

  // RFC 8032 §7.1, TEST 1.
  private static final String RFC8032_SECRET =
      "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
  private static final String RFC8032_PUBLIC =
      "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";
  private static final String RFC8032_SIGNATURE =
      "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065"
          + "224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b";

  private static ObjectNode unsignedReceipt() {
    ObjectNode r = MAPPER.createObjectNode();
    r.put("version", "1.0");
    r.put("receipt_id", "01JSIGNERTEST0000000000000");
    r.put("workspace_id", "ws_signer");
    r.put("issued_at", "2026-11-22T10:15:30.123Z");
    r.put("decision", "deny");
    r.put("reason", "scope_not_granted");
    r.putNull("user_id");
    r.putNull("agent_id");
    r.put("scope", "files.delete");
    r.putNull("resource");
    r.putObject("context").put("note", "é\n\"x\"");
    r.put("authorization_id", "auth_1");
    r.put("policy_version", "2026-11-21.1");
    return r;
  }

  private static ReceiptVerifier verifierFor(ReceiptSigner signer) {
    String keys =
        "{\"workspace_id\":\"ws_signer\",\"keys\":[{\"key_id\":\""
            + signer.keyId()
            + "\",\"alg\":\"Ed25519\",\"public_key\":\""
            + signer.publicKeyBase64Url()
            + "\",\"active_from\":\"2026-01-01T00:00:00Z\",\"active_until\":null}]}";
    return ReceiptVerifier.builder()
        .keysJson(keys)
        .clock(Clock.fixed(Instant.parse("2026-11-22T12:00:00Z"), ZoneOffset.UTC))
        .build();
  }

  @Test
  void rfc8032TestVector1EmptyMessageGivesTheKnownSignature() {
    ReceiptSigner signer = ReceiptSigner.fromSeed("rfc8032", HEX.parseHex(RFC8032_SECRET));

    assertThat(HEX.formatHex(signer.publicKey())).isEqualTo(RFC8032_PUBLIC);
    assertThat(HEX.formatHex(signer.sign(new byte[0]))).isEqualTo(RFC8032_SIGNATURE);
    assertThat(signer.signatureValue(new byte[0]))
        .isEqualTo(
            Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString(HEX.parseHex(RFC8032_SIGNATURE)));
  }

  @Test
  void signedReceiptVerifies() {
    ReceiptSigner signer = ReceiptSigner.generate("ws_signer/k1", new SecureRandom());

    ObjectNode signed = signer.sign(unsignedReceipt());
    VerificationResult result = verifierFor(signer).verify(signed.toString());

    assertThat(result.valid()).as(result.message()).isTrue();
    assertThat(result.receiptId()).isEqualTo("01JSIGNERTEST0000000000000");
  }

  @Test
  void signatureMemberIsAddedLastWithAlgKeyIdAndUnpaddedValue() {
    ReceiptSigner signer = ReceiptSigner.fromSeed("ws_signer/k1", new byte[32]);
    ObjectNode unsigned = unsignedReceipt();
    String before = unsigned.toString();

    ObjectNode signed = signer.sign(unsigned);

    assertThat(unsigned.toString()).as("argument untouched").isEqualTo(before);
    List<String> names = new ArrayList<>();
    signed.fieldNames().forEachRemaining(names::add);
    assertThat(names).last().isEqualTo("signature");
    ObjectNode signature = (ObjectNode) signed.get("signature");
    assertThat(signature.size()).isEqualTo(3);
    assertThat(signature.get("alg").asText()).isEqualTo("Ed25519");
    assertThat(signature.get("key_id").asText()).isEqualTo("ws_signer/k1");
    String value = signature.get("value").asText();
    assertThat(value).hasSize(86).matches("[A-Za-z0-9_-]+");
    assertThat(value).isEqualTo(signer.signatureValue(Canonicalizer.signingPayload(unsigned)));
  }

  @Test
  void signingAnAlreadySignedReceiptReplacesTheSignature() {
    ReceiptSigner first = ReceiptSigner.fromSeed("a", new byte[32]);
    ReceiptSigner second = ReceiptSigner.generate("b", new SecureRandom());

    ObjectNode resigned = second.sign(first.sign(unsignedReceipt()));

    assertThat(resigned.get("signature").get("key_id").asText()).isEqualTo("b");
    assertThat(verifierFor(second).verify(resigned).valid()).isTrue();
  }

  @Test
  void signaturesAreDeterministicForTheSameSeed() {
    byte[] seed = HEX.parseHex(RFC8032_SECRET);

    assertThat(ReceiptSigner.fromSeed("k", seed).sign(unsignedReceipt()))
        .isEqualTo(ReceiptSigner.fromSeed("k", seed).sign(unsignedReceipt()));
  }

  @Test
  void rawSignatureVerifiesWithBouncyCastle() {
    ReceiptSigner signer = ReceiptSigner.generate("k", new SecureRandom());
    byte[] message = "hello".getBytes(java.nio.charset.StandardCharsets.UTF_8);

    byte[] signature = signer.sign(message);

    assertThat(
            new Ed25519PublicKeyParameters(signer.publicKey())
                .verify(Ed25519.Algorithm.Ed25519, null, message, 0, 5, signature, 0))
        .isTrue();
  }

  @Test
  void seedIsCopiedAndPublicKeyArrayIsAFreshCopy() {
    byte[] seed = HEX.parseHex(RFC8032_SECRET);
    ReceiptSigner signer = ReceiptSigner.fromSeed("k", seed);
    java.util.Arrays.fill(seed, (byte) 0);
    signer.publicKey()[0] ^= 1;

    assertThat(HEX.formatHex(signer.publicKey())).isEqualTo(RFC8032_PUBLIC);
    assertThat(HEX.formatHex(signer.sign(new byte[0]))).isEqualTo(RFC8032_SIGNATURE);
  }

  @Test
  void seedOfWrongLengthOrEmptyKeyIdIsRejected() {
    assertThatThrownBy(() -> ReceiptSigner.fromSeed("k", new byte[31]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("32 bytes, was 31");
    assertThatThrownBy(() -> ReceiptSigner.fromSeed("", new byte[32]))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ReceiptSigner.fromSeed(null, new byte[32]))
        .isInstanceOf(NullPointerException.class);
  }

  @Test
  void receiptWithoutCanonicalFormCannotBeSigned() {
    ObjectNode receipt = unsignedReceipt();
    ((ObjectNode) receipt.get("context")).put("ratio", 0.5);

    assertThatThrownBy(() -> ReceiptSigner.fromSeed("k", new byte[32]).sign(receipt))
        .isInstanceOf(CanonicalizationException.class)
        .hasMessageContaining("$.context.ratio");
  }

  @Test
  void toStringShowsKeyIdAndPublicKeyButNeverTheSeed() {
    ReceiptSigner signer = ReceiptSigner.fromSeed("k", HEX.parseHex(RFC8032_SECRET));

    assertThat(signer.toString())
        .contains("k", signer.publicKeyBase64Url())
        .doesNotContain(RFC8032_SECRET)
        .doesNotContain(
            Base64.getUrlEncoder().withoutPadding().encodeToString(HEX.parseHex(RFC8032_SECRET)));
  }

  @Test
  void oneSignerSignsConcurrently() throws Exception {
    ReceiptSigner signer = ReceiptSigner.generate("k", new SecureRandom());
    ReceiptVerifier verifier = verifierFor(signer);
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<Boolean>> futures = new ArrayList<>();
      for (int i = 0; i < 400; i++) {
        int n = i;
        futures.add(
            pool.submit(
                () -> {
                  ObjectNode r = unsignedReceipt();
                  ((ObjectNode) r.get("context")).put("n", n);
                  return verifier.verify(signer.sign(r)).valid();
                }));
      }
      for (Future<Boolean> f : futures) {
        assertThat(f.get()).isTrue();
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
