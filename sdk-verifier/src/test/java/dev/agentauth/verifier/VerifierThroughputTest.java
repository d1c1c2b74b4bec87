package dev.agentauth.verifier;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.math.ec.rfc8032.Ed25519;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Single-thread throughput of {@link ReceiptVerifier#verify(String)} against raw Bouncy Castle
 * Ed25519 verification of the same payload. Timing-dependent, so off by default: run with {@code
 * mvn -pl sdk-verifier test -Dtest=VerifierThroughputTest -Dagentauth.bench=true}.
 */
@EnabledIfSystemProperty(named = "agentauth.bench", matches = "true")
class VerifierThroughputTest {

  private static final long ROUND_NANOS = 1_000_000_000L;

  @Test
  void verifyReachesEightyFivePercentOfRawEd25519Throughput() {
    ObjectNode receipt = Fixtures.scopeReceipt();
    ObjectNode context = (ObjectNode) receipt.get("context");
    context
        .putObject("budget")
        .put("limit_micros", 5_000_000)
        .put("spent_micros", 1_250_000)
        .put("estimated_cost_micros", 20_000)
        .put("spent_after_micros", 1_270_000);
    String json = Fixtures.json(Fixtures.K1.sign(receipt));
    ReceiptVerifier verifier = Fixtures.verifier();
    byte[] payload = Canonicalizer.signingPayload(receipt);
    byte[] signature =
        Base64Url.decode(Fixtures.K1.sign(receipt).get("signature").get("value").asText());
    Ed25519PublicKeyParameters key = new Ed25519PublicKeyParameters(Fixtures.K1.publicKey());
    assertThat(verifier.verify(json).valid()).isTrue();

    double raw = 0;
    double full = 0;
    for (int round = 0; round < 8; round++) {
      double r =
          rate(
              () ->
                  key.verify(
                      Ed25519.Algorithm.Ed25519, null, payload, 0, payload.length, signature, 0));
      double f = rate(() -> verifier.verify(json).valid());
      if (round >= 3) { // warm-up rounds discarded
        raw += r;
        full += f;
      }
    }
    double ratio = full / raw;
    System.out.printf(
        "receipt %d bytes (payload %d): raw Ed25519 %.0f/s, ReceiptVerifier %.0f/s, ratio %.3f%n",
        json.getBytes(StandardCharsets.UTF_8).length, payload.length, raw / 5, full / 5, ratio);
    assertThat(ratio).isGreaterThanOrEqualTo(0.85);
  }

  private interface Op {
    boolean run();
  }

  private static double rate(Op op) {
    long start = System.nanoTime();
    long n = 0;
    boolean sink = true;
    while (System.nanoTime() - start < ROUND_NANOS) {
      for (int i = 0; i < 100; i++) {
        sink &= op.run();
      }
      n += 100;
    }
    assertThat(sink).isTrue();
    return n * 1e9 / (System.nanoTime() - start);
  }
}
