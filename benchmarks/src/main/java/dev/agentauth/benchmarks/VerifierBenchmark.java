package dev.agentauth.benchmarks;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.verifier.Canonicalizer;
import dev.agentauth.verifier.ReceiptVerifier;
import dev.agentauth.verifier.VerificationResult;
import dev.agentauth.verifier.signing.ReceiptSigner;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.Base64;
import java.util.concurrent.TimeUnit;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.math.ec.rfc8032.Ed25519;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Throughput of offline receipt verification on one and on two threads, against its floor: the
 * Ed25519 signature check alone.
 *
 * <ul>
 *   <li>{@link #receiptVerifier()}: {@link ReceiptVerifier#verify(String)} of a typical signed
 *       scope receipt (732 bytes of JSON with a small {@code client_context} and a {@code budget}
 *       block; its signing payload is 578 bytes): parse, every schema step, canonicalization and
 *       the signature check;
 *   <li>{@link #rawEd25519()}: Bouncy Castle's Ed25519 verification of that receipt's signing
 *       payload (the exact bytes, hence the same size, {@code ReceiptVerifier} hashes) with a
 *       pre-decoded public key, which is what {@code ReceiptVerifier} does internally;
 *   <li>{@link #canonicalize()}: {@link Canonicalizer#canonicalize} of the parsed receipt alone;
 *   <li>{@link #receiptVerifierTwoThreads()} and {@link #rawEd25519TwoThreads()}: the same two
 *       operations on two threads at once (JMH reports their total rate), each thread with its own
 *       copy of the state but the verifier shared, as an application or the CLI shares it.
 * </ul>
 *
 * <p>The targets: {@code receiptVerifier} at least 85% of {@code rawEd25519}, and {@code
 * receiptVerifierTwoThreads} at least 1.8 times {@code receiptVerifier}, measured in the same run.
 * See {@code benchmarks/README.md} for how to run it.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(1)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class VerifierBenchmark {

  private static final String WORKSPACE = "ws_acme";

  /** A fixed clock an hour after the receipt's issued_at: the result never depends on the date. */
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-06-01T12:00:00Z"), ZoneOffset.UTC);

  /** Built once and shared by every thread, as a verifier is meant to be used. */
  private static volatile ReceiptVerifier shared;

  private ReceiptVerifier verifier;
  private String receiptJson;
  private JsonNode receiptTree;
  private Ed25519PublicKeyParameters publicKey;
  private byte[] payload;
  private byte[] signature;

  /** Creates the benchmark state; JMH calls {@link #setUp()} before measuring. */
  public VerifierBenchmark() {}

  /**
   * Signs the receipt with a fixed-seed key, builds the verifier from the matching keys document,
   * and checks that every benchmarked operation succeeds on it.
   *
   * @throws JsonProcessingException never, in practice: the JSON is built here
   */
  @Setup(Level.Trial)
  public void setUp() throws JsonProcessingException {
    ObjectMapper mapper = new ObjectMapper();
    byte[] seed = new byte[32];
    Arrays.fill(seed, (byte) 0x5A);
    ReceiptSigner signer = ReceiptSigner.fromSeed(WORKSPACE + "/2026-06", seed);

    ObjectNode signed = signer.sign(typicalReceipt(mapper));
    receiptJson = mapper.writeValueAsString(signed);
    receiptTree = mapper.readTree(receiptJson);

    ObjectNode keys = ReceiptBatch.keysDocument(mapper, WORKSPACE, signer);
    synchronized (VerifierBenchmark.class) {
      if (shared == null) {
        shared = ReceiptVerifier.builder().keys(keys).clock(CLOCK).build();
      }
      verifier = shared;
    }

    publicKey = new Ed25519PublicKeyParameters(signer.publicKey());
    payload = Canonicalizer.signingPayload(signed);
    signature = Base64.getUrlDecoder().decode(signed.get("signature").get("value").textValue());

    VerificationResult result = verifier.verify(receiptJson);
    if (!result.valid()) {
      throw new IllegalStateException("benchmark receipt does not verify: " + result);
    }
    if (!rawEd25519()) {
      throw new IllegalStateException("benchmark signature does not verify");
    }
    if (canonicalize().length <= payload.length) {
      throw new IllegalStateException("the canonical form lacks the signature member");
    }
  }

  /** A scope receipt as the server issues it for a budgeted check with client context. */
  private static ObjectNode typicalReceipt(ObjectMapper mapper) {
    ObjectNode r = mapper.createObjectNode();
    r.put("version", "1.0");
    r.put("receipt_id", "01JD8Z7K2M4N6P8Q0R2S4T6V8W");
    r.put("workspace_id", WORKSPACE);
    r.put("issued_at", "2026-06-01T11:00:00.123Z");
    r.put("decision", "allow");
    r.put("reason", "authorization_granted_scope_active");
    r.put("user_id", "user_4821");
    r.put("agent_id", "agent_mail");
    r.put("scope", "email.send");
    r.put("resource", "mailbox:inbox");
    ObjectNode context = r.putObject("context");
    context.putObject("client_context").put("initiated_by", "user").put("channel", "chat");
    context.put("session_id", "sess_8842");
    ObjectNode budget = context.putObject("budget");
    budget.put("limit_micros", 5_000_000);
    budget.put("spent_micros", 1_250_000);
    budget.put("estimated_cost_micros", 20_000);
    budget.put("spent_after_micros", 1_270_000);
    r.put("authorization_id", "auth_01JD8Z6Q4W3XKZ9T0B2C4D6E8F");
    r.put("policy_version", "2026-05-28.3");
    return r;
  }

  /**
   * Full offline verification of the receipt's JSON text.
   *
   * @return the result (valid), returned so the JIT cannot drop the work
   */
  @Benchmark
  public VerificationResult receiptVerifier() {
    return verifier.verify(receiptJson);
  }

  /**
   * Bouncy Castle Ed25519 verification of the signing payload with a pre-decoded public key.
   *
   * @return {@code true}
   */
  @Benchmark
  public boolean rawEd25519() {
    return publicKey.verify(
        Ed25519.Algorithm.Ed25519, null, payload, 0, payload.length, signature, 0);
  }

  /**
   * Canonical form of the parsed receipt (signature member included).
   *
   * @return the canonical bytes
   */
  @Benchmark
  public byte[] canonicalize() {
    return Canonicalizer.canonicalize(receiptTree);
  }

  /**
   * {@link #receiptVerifier()} on two threads at once.
   *
   * @return the result (valid)
   */
  @Benchmark
  @Threads(2)
  public VerificationResult receiptVerifierTwoThreads() {
    return verifier.verify(receiptJson);
  }

  /**
   * {@link #rawEd25519()} on two threads at once.
   *
   * @return {@code true}
   */
  @Benchmark
  @Threads(2)
  public boolean rawEd25519TwoThreads() {
    return publicKey.verify(
        Ed25519.Algorithm.Ed25519, null, payload, 0, payload.length, signature, 0);
  }
}
