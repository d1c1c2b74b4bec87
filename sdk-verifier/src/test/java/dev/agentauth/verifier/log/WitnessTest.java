package dev.agentauth.verifier.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.crypto.signers.Ed25519Signer;
import org.junit.jupiter.api.Test;

/** Witness keys (vkey, skey) and tlog-cosignature v1 lines. */
class WitnessTest {

  static byte[] seed(int n) {
    byte[] seed = new byte[32];
    Arrays.fill(seed, (byte) n);
    return seed;
  }

  static final Checkpoint CHECKPOINT =
      new Checkpoint("log.example/agentauth/ws_1", 5, NaiveMerkle.sha256(new byte[] {5}));

  @Test
  void vkeyAndSkeyRoundTripAndCarryTheKeyHashOfAlgorithm4() {
    CosignatureSigner signer = CosignatureSigner.ed25519("witness.example/w1", seed(7));
    WitnessKey key = signer.witnessKey();
    byte[] expectedHash =
        NaiveMerkle.sha256(
            "witness.example/w1\n".getBytes(StandardCharsets.UTF_8),
            new byte[] {4},
            key.publicKey());
    assertThat(key.keyHash()).isEqualTo(ByteBuffer.wrap(expectedHash).getInt());
    assertThat(key.vkey()).startsWith("witness.example/w1+");
    assertThat(Base64.getDecoder().decode(key.vkey().split("\\+", 3)[2])[0]).isEqualTo((byte) 4);
    assertThat(WitnessKey.parseVkey(key.vkey())).isEqualTo(key);
    assertThat(signer.skey()).startsWith("PRIVATE+KEY+witness.example/w1+");
    assertThat(CosignatureSigner.fromSkey(signer.skey() + "\n").witnessKey()).isEqualTo(key);
  }

  @Test
  void keysWhoseBase64HoldsPlusSignsRoundTrip() {
    int withPlus = 0;
    for (int i = 0; i < 64; i++) {
      CosignatureSigner signer = CosignatureSigner.ed25519("w" + i, seed(i));
      String vkey = signer.witnessKey().vkey();
      withPlus += vkey.chars().filter(c -> c == '+').count() > 2 ? 1 : 0;
      assertThat(WitnessKey.parseVkey(vkey)).isEqualTo(signer.witnessKey());
      assertThat(CosignatureSigner.fromSkey(signer.skey()).witnessKey())
          .isEqualTo(signer.witnessKey());
    }
    assertThat(withPlus).isPositive();
  }

  @Test
  void aCosignatureSignsTheC2spMessageAndVerifies() {
    CosignatureSigner signer = CosignatureSigner.ed25519("w1", seed(7));
    String line = signer.cosign(CHECKPOINT, 1_700_000_000L);
    assertThat(line).startsWith("\u2014 w1 ").endsWith("\n");
    SignedNote.Signature sig = SignedNote.parseLine(line.substring(0, line.length() - 1), 1);
    assertThat(signer.witnessKey().verify(CHECKPOINT, sig)).isEqualTo(1_700_000_000L);

    // Independently: key hash ‖ big-endian time ‖ Ed25519 over the spec's message.
    byte[] raw = Base64.getDecoder().decode(line.substring("\u2014 w1 ".length()).strip());
    assertThat(raw).hasSize(4 + 8 + 64);
    assertThat(ByteBuffer.wrap(raw, 4, 8).getLong()).isEqualTo(1_700_000_000L);
    byte[] message =
        ("cosignature/v1\ntime 1700000000\n" + CHECKPOINT.body()).getBytes(StandardCharsets.UTF_8);
    Ed25519Signer verifier = new Ed25519Signer();
    verifier.init(false, new Ed25519PublicKeyParameters(signer.witnessKey().publicKey()));
    verifier.update(message, 0, message.length);
    assertThat(verifier.verifySignature(Arrays.copyOfRange(raw, 12, 76))).isTrue();
  }

  @Test
  void aCosignatureOverAnotherCheckpointOrTimeOrByAnotherKeyIsRefused() {
    CosignatureSigner signer = CosignatureSigner.ed25519("w1", seed(7));
    String line = signer.cosign(CHECKPOINT, 100);
    SignedNote.Signature sig = SignedNote.parseLine(line.strip(), 1);
    Checkpoint other = new Checkpoint(CHECKPOINT.origin(), 6, CHECKPOINT.rootHash());
    assertThatThrownBy(() -> signer.witnessKey().verify(other, sig))
        .hasMessageContaining("does not verify");
    byte[] bytes = sig.signature();
    bytes[7] ^= 1; // the timestamp's last byte
    SignedNote.Signature retimed = new SignedNote.Signature("w1", sig.keyHash(), bytes);
    assertThatThrownBy(() -> signer.witnessKey().verify(CHECKPOINT, retimed))
        .hasMessageContaining("does not verify");
    WitnessKey impostor = CosignatureSigner.ed25519("w1", seed(8)).witnessKey();
    assertThatThrownBy(() -> impostor.verify(CHECKPOINT, sig))
        .hasMessageContaining("is not by witness key");
  }

  @Test
  void malformedKeysAreRefused() {
    String vkey = CosignatureSigner.ed25519("w1", seed(7)).witnessKey().vkey();
    String[] p = vkey.split("\\+", 3);
    assertVkeyRefused(p[0] + "+" + p[1], "<name>+<8 hex digits>+<base64 key>");
    assertVkeyRefused(p[0] + "+" + p[1].toUpperCase() + "+" + p[2], "lowercase hex");
    assertVkeyRefused(p[0] + "+00000000+" + p[2], "does not match");
    assertVkeyRefused("w 1+" + p[1] + "+" + p[2], "spaces");
    byte[] ed25519 = Base64.getDecoder().decode(p[2]);
    ed25519[0] = 1;
    assertVkeyRefused(
        p[0] + "+" + p[1] + "+" + Base64.getEncoder().encodeToString(ed25519), "0x04");
    assertThatThrownBy(() -> CosignatureSigner.fromSkey("PRIVATE+KEY+w1+00000000+AAAA"))
        .hasMessageContaining("0x04");
    String skey = CosignatureSigner.ed25519("w1", seed(7)).skey();
    assertThatThrownBy(() -> CosignatureSigner.fromSkey(skey.replace("+w1+", "+w2+")))
        .hasMessageContaining("does not match")
        .hasMessageNotContaining(skey.substring(skey.lastIndexOf('+') + 1));
  }

  private static void assertVkeyRefused(String vkey, String message) {
    assertThatThrownBy(() -> WitnessKey.parseVkey(vkey))
        .isInstanceOf(LogVerificationException.class)
        .hasMessageContaining(message);
  }
}
