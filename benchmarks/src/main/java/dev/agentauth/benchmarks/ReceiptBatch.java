package dev.agentauth.benchmarks;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.verifier.ReceiptVerifier;
import dev.agentauth.verifier.signing.ReceiptSigner;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Distinct signed scope receipts of one workspace, shaped like {@link VerifierBenchmark}'s typical
 * receipt, and their keys document. Run as a program it writes them for the CLI benchmark: {@code
 * java -cp agentauth-benchmarks.jar dev.agentauth.benchmarks.ReceiptBatch DIR COUNT} writes {@code
 * DIR/keys.json} and {@code DIR/receipts.ndjson}.
 *
 * @param keysJson the keys document
 * @param receipts each receipt's JSON text
 * @param verifier a verifier of the keys document on a clock after every receipt
 */
public record ReceiptBatch(String keysJson, List<String> receipts, ReceiptVerifier verifier) {

  private static final String WORKSPACE = "ws_acme";

  /** After every receipt's issued_at. */
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-06-01T12:00:00Z"), ZoneOffset.UTC);

  /**
   * Signs {@code count} receipts with a fixed-seed key.
   *
   * @param count how many receipts
   * @return the batch
   * @throws JsonProcessingException never, in practice: the JSON is built here
   */
  public static ReceiptBatch create(int count) throws JsonProcessingException {
    ObjectMapper mapper = new ObjectMapper();
    byte[] seed = new byte[32];
    Arrays.fill(seed, (byte) 0x5A);
    ReceiptSigner signer = ReceiptSigner.fromSeed(WORKSPACE + "/2026-06", seed);
    List<String> receipts = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      ObjectNode r = mapper.createObjectNode();
      r.put("version", "1.0");
      r.put("receipt_id", String.format("01JD8Z7K2M4N6P8Q0R2S%06d", i));
      r.put("workspace_id", WORKSPACE);
      r.put("issued_at", String.format("2026-06-01T11:%02d:%02d.123Z", (i / 60) % 60, i % 60));
      r.put("decision", i % 5 == 0 ? "deny" : "allow");
      r.put("reason", "authorization_granted_scope_active");
      r.put("user_id", "user_" + (4821 + i % 17));
      r.put("agent_id", "agent_mail");
      r.put("scope", "email.send");
      r.put("resource", "mailbox:inbox");
      ObjectNode context = r.putObject("context");
      context.putObject("client_context").put("initiated_by", "user").put("channel", "chat");
      context.put("session_id", "sess_" + (8842 + i));
      ObjectNode budget = context.putObject("budget");
      budget.put("limit_micros", 5_000_000);
      budget.put("spent_micros", 1_250_000 + 20_000L * i);
      budget.put("estimated_cost_micros", 20_000);
      budget.put("spent_after_micros", 1_270_000 + 20_000L * i);
      r.put("authorization_id", "auth_01JD8Z6Q4W3XKZ9T0B2C4D6E8F");
      r.put("policy_version", "2026-05-28.3");
      receipts.add(mapper.writeValueAsString(signer.sign(r)));
    }
    String keysJson = mapper.writeValueAsString(keysDocument(mapper, WORKSPACE, signer));
    ReceiptVerifier verifier = ReceiptVerifier.builder().keysJson(keysJson).clock(CLOCK).build();
    return new ReceiptBatch(keysJson, List.copyOf(receipts), verifier);
  }

  /**
   * The keys document of {@code workspaceId} holding {@code signer}'s public key, active since
   * 2026-01-01 and not retired.
   */
  static ObjectNode keysDocument(ObjectMapper mapper, String workspaceId, ReceiptSigner signer) {
    ObjectNode keys = mapper.createObjectNode();
    keys.put("workspace_id", workspaceId);
    ObjectNode key = keys.putArray("keys").addObject();
    key.put("key_id", signer.keyId());
    key.put("alg", "Ed25519");
    key.put("public_key", signer.publicKeyBase64Url());
    key.put("active_from", "2026-01-01T00:00:00Z");
    key.putNull("active_until");
    return keys;
  }

  /**
   * Writes {@code DIR/keys.json} and {@code DIR/receipts.ndjson} with {@code COUNT} receipts.
   *
   * @param args {@code DIR COUNT}
   * @throws IOException if a file cannot be written
   */
  public static void main(String[] args) throws IOException {
    if (args.length != 2) {
      System.err.println("usage: ReceiptBatch DIR COUNT");
      System.exit(2);
    }
    Path dir = Files.createDirectories(Path.of(args[0]));
    ReceiptBatch batch = create(Integer.parseInt(args[1]));
    Files.writeString(dir.resolve("keys.json"), batch.keysJson(), StandardCharsets.UTF_8);
    Files.writeString(
        dir.resolve("receipts.ndjson"),
        String.join("\n", batch.receipts()) + "\n",
        StandardCharsets.UTF_8);
  }
}
