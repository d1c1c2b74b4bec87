package dev.agentauth.verifier;

import static dev.agentauth.verifier.Fixtures.K0;
import static dev.agentauth.verifier.Fixtures.K1;
import static dev.agentauth.verifier.Fixtures.json;
import static dev.agentauth.verifier.Fixtures.scopeReceipt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import org.bouncycastle.crypto.digests.SHA256Digest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Key pinning: {@link KeyFingerprint} and {@link ReceiptVerifier.Builder#trustedKeyFingerprints}.
 */
class KeyPinningTest {

  /** The public receipt-format vectors' key, fingerprinted with Python's hashlib. */
  private static final String VECTOR_KEY_FINGERPRINT =
      "SHA256:E545QOZLVJFyIIjZoNdBYo_IJuCUddNBp4Cs3jxLgHA";

  /** SHA-256 with Bouncy Castle's digest, independent of the JDK's used by KeyFingerprint. */
  private static String sha256Fingerprint(byte[] publicKey) {
    SHA256Digest digest = new SHA256Digest();
    digest.update(publicKey, 0, publicKey.length);
    byte[] out = new byte[32];
    digest.doFinal(out, 0);
    return "SHA256:" + Base64.getUrlEncoder().withoutPadding().encodeToString(out);
  }

  private static ReceiptVerifier.Builder pinned(String... fingerprints) {
    return ReceiptVerifier.builder()
        .keys(Fixtures.keysDocument())
        .clock(Fixtures.CLOCK)
        .trustedKeyFingerprints(List.of(fingerprints));
  }

  @Test
  void theFingerprintIsTheUnpaddedBase64UrlSha256OfTheRawPublicKey() {
    assertThat(KeyFingerprint.of(K1.publicKey())).isEqualTo(sha256Fingerprint(K1.publicKey()));
    assertThat(KeyFingerprint.of(K1.publicKey())).hasSize(50).startsWith("SHA256:");
    assertThat(Fixtures.vectorVerifier().keyFingerprints())
        .containsExactly(java.util.Map.entry("test-key/v1", VECTOR_KEY_FINGERPRINT));
  }

  @Test
  void keyFingerprintsListsEveryKeyInDocumentOrder() {
    ReceiptVerifier verifier = pinned(KeyFingerprint.of(K1.publicKey())).build();

    assertThat(verifier.keyFingerprints())
        .containsExactly(
            java.util.Map.entry("fixture/k0", KeyFingerprint.of(K0.publicKey())),
            java.util.Map.entry("fixture/k1", KeyFingerprint.of(K1.publicKey())));
    assertThat(verifier.trustedKeyFingerprints())
        .containsExactly(KeyFingerprint.of(K1.publicKey()));
    assertThat(Fixtures.verifier().trustedKeyFingerprints()).isEmpty();
  }

  @Test
  void aReceiptSignedByAPinnedKeyVerifies() {
    ReceiptVerifier verifier = pinned(KeyFingerprint.of(K1.publicKey())).build();

    VerificationResult result = verifier.verify(json(K1.sign(scopeReceipt())));

    assertThat(result.valid()).as(result.message()).isTrue();
  }

  @Test
  void aReceiptSignedByAnUnpinnedKeyOfTheDocumentFailsKeyNotFoundNamingTheKey() {
    ReceiptVerifier verifier = pinned(KeyFingerprint.of(K1.publicKey())).build();
    ObjectNode byK0 = scopeReceipt();
    byK0.put("issued_at", "2025-06-01T00:00:00.000Z"); // inside K0's window
    String receipt = json(K0.sign(byK0));
    assertThat(Fixtures.verifier().verify(receipt).valid()).as("valid without pins").isTrue();

    VerificationResult result = verifier.verify(receipt);

    assertThat(result.valid()).isFalse();
    assertThat(result.failedStep()).isEqualTo(VerificationStep.KEY_NOT_FOUND);
    assertThat(result.message())
        .isEqualTo(
            "key \"fixture/k0\" is in the keys document of workspace ws_fixture but is not"
                + " pinned: its fingerprint "
                + KeyFingerprint.of(K0.publicKey())
                + " is not one of the trusted key fingerprints");
    assertThatThrownBy(() -> verifier.verifyOrThrow(receipt))
        .isInstanceOf(ReceiptVerificationException.class)
        .hasMessageContaining("step KEY_NOT_FOUND")
        .hasMessageContaining("fixture/k0");
  }

  @Test
  void pinsThatMatchNoKeyAreAllowedWhenOneMatches() {
    String elsewhere = sha256Fingerprint("another key".getBytes(StandardCharsets.UTF_8));

    ReceiptVerifier verifier = pinned(elsewhere, KeyFingerprint.of(K1.publicKey())).build();

    assertThat(verifier.verify(json(K1.sign(scopeReceipt()))).valid()).isTrue();
  }

  @Test
  void aKeysDocumentHoldingNoPinnedKeyIsAConfigurationError() {
    String elsewhere = sha256Fingerprint("another key".getBytes(StandardCharsets.UTF_8));

    assertThatThrownBy(() -> pinned(elsewhere).build())
        .isInstanceOf(KeysDocumentException.class)
        .hasMessage(
            "the keys document of workspace ws_fixture holds none of the pinned keys ["
                + elsewhere
                + "]; its keys are \"fixture/k0\" "
                + KeyFingerprint.of(K0.publicKey())
                + ", \"fixture/k1\" "
                + KeyFingerprint.of(K1.publicKey()));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "E545QOZLVJFyIIjZoNdBYo_IJuCUddNBp4Cs3jxLgHA", // no prefix
        "sha256:E545QOZLVJFyIIjZoNdBYo_IJuCUddNBp4Cs3jxLgHA", // prefix in lower case
        "SHA256:E545QOZLVJFyIIjZoNdBYo_IJuCUddNBp4Cs3jxLgHA=", // padding
        "SHA256:E545QOZLVJFyIIjZoNdBYo/IJuCUddNBp4Cs3jxLgHA", // base64, not base64url
        "SHA256:E545QOZLVJFyIIjZoNdBYo_IJuCUddNBp4Cs3jxLg", // 30 bytes
        "SHA256:",
        ""
      })
  void malformedFingerprintsAreRejectedNamingTheDefect(String fingerprint) {
    assertThatThrownBy(() -> KeyFingerprint.requireValid(fingerprint))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("key fingerprint \"" + fingerprint + "\"");
    assertThatThrownBy(() -> pinned(fingerprint))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("key fingerprint \"" + fingerprint + "\"");
  }

  @Test
  void theDefectIsNamed() {
    assertThatThrownBy(() -> KeyFingerprint.requireValid("SHA256:E545QOZLVJFyIIjZoNdBYo/IJuCU"))
        .hasMessageContaining("'/' at index 22 is outside the base64url alphabet");
    assertThatThrownBy(() -> KeyFingerprint.requireValid("SHA256:AAAA"))
        .hasMessageContaining("decodes to 3 bytes; a SHA-256 digest is 32");
    assertThatThrownBy(() -> KeyFingerprint.requireValid("MD5:AAAA"))
        .hasMessageContaining("must start with \"SHA256:\"");
  }

  @Test
  void anEmptySetOfPinsIsRejectedRatherThanTrustingEverything() {
    assertThatThrownBy(() -> ReceiptVerifier.builder().trustedKeyFingerprints(Set.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no trusted key fingerprints given");
  }

  @Test
  void aFingerprintNeedsA32BytePublicKey() {
    assertThatThrownBy(() -> KeyFingerprint.of(new byte[31]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("an Ed25519 public key is 32 bytes; got 31 bytes");
  }
}
