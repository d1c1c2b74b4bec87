package dev.agentauth.verifier.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.verifier.signing.ReceiptSigner;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Keys, receipts and a way to run the CLI in-process on a fixed clock. */
final class CliFixtures {

  static final ObjectMapper MAPPER = new ObjectMapper();

  static final String WORKSPACE = "ws_cli";
  static final String AUTHORIZATION = "auth_01JCLI0000000000000000000";
  static final Instant NOW = Instant.parse("2026-06-01T12:00:00Z");
  static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);

  /** A clock after every vector's issued_at. */
  static final Clock VECTOR_CLOCK =
      Clock.fixed(Instant.parse("2026-07-01T00:00:00Z"), ZoneOffset.UTC);

  static final ReceiptSigner SIGNER = ReceiptSigner.fromSeed("cli/k1", seed(7));

  /** A second published key ({@link #keysDocument(ReceiptSigner...)}). */
  static final ReceiptSigner SECOND = ReceiptSigner.fromSeed("cli/k2", seed(9));

  /** Signs with a key nobody published under the published key id. */
  static final ReceiptSigner IMPOSTOR = ReceiptSigner.fromSeed("cli/k1", seed(8));

  private CliFixtures() {}

  static byte[] seed(int n) {
    byte[] seed = new byte[32];
    Arrays.fill(seed, (byte) (0x20 + n));
    return seed;
  }

  /** The keys document of {@link #WORKSPACE}: {@link #SIGNER}'s key, active from 2026-01-01. */
  static String keysDocument() {
    return keysDocument(SIGNER);
  }

  /** The keys document of {@link #WORKSPACE} with these keys, each active from 2026-01-01. */
  static String keysDocument(ReceiptSigner... signers) {
    ObjectNode doc = MAPPER.createObjectNode();
    doc.put("workspace_id", WORKSPACE);
    ArrayNode keys = doc.putArray("keys");
    for (ReceiptSigner signer : signers) {
      ObjectNode k = keys.addObject();
      k.put("key_id", signer.keyId());
      k.put("alg", "Ed25519");
      k.put("public_key", signer.publicKeyBase64Url());
      k.put("active_from", "2026-01-01T00:00:00Z");
      k.putNull("active_until");
    }
    return json(doc);
  }

  /** A signed scope receipt issued at {@code 2026-06-01T<time>:00Z}. */
  static ObjectNode scope(String id, String time, String decision) {
    return scope(SIGNER, id, time, decision);
  }

  /** A scope receipt issued at {@code 2026-06-01T<time>:00Z}, signed by {@code signer}. */
  static ObjectNode scope(ReceiptSigner signer, String id, String time, String decision) {
    ObjectNode r = base(id, time, decision, "authorization_granted_scope_active");
    r.put("scope", "email.send");
    r.put("resource", "mailbox:inbox");
    r.putObject("context").putObject("client_context").put("initiated_by", "user");
    return signer.sign(reorder(r));
  }

  /** A signed authorization.create receipt. */
  static ObjectNode create(String time) {
    ObjectNode r = base("01JCLICREATE", time, "authorization_granted", "authorization_created");
    r.put("event", "authorization.create");
    r.putNull("resource");
    ObjectNode context = r.putObject("context");
    context.putArray("scopes").addObject().put("name", "email.send");
    context.put("expires_at", "2026-12-31T00:00:00.000Z");
    return SIGNER.sign(reorder(r));
  }

  /** A signed authorization.revoke receipt. */
  static ObjectNode revoke(String time) {
    ObjectNode r = base("01JCLIREVOKE", time, "authorization_revoked", "authorization_revoked");
    r.put("event", "authorization.revoke");
    r.putNull("resource");
    r.putObject("context").put("revoked_by", "api_key");
    return SIGNER.sign(reorder(r));
  }

  private static ObjectNode base(String id, String time, String decision, String reason) {
    ObjectNode r = MAPPER.createObjectNode();
    r.put("version", "1.0");
    r.put("receipt_id", id);
    r.put("workspace_id", WORKSPACE);
    r.put("issued_at", "2026-06-01T" + time + ":00.000Z");
    r.put("decision", decision);
    r.put("reason", reason);
    r.put("user_id", "user_42");
    r.put("agent_id", "agent_mail");
    return r;
  }

  /** Appends the members every receipt ends with. */
  private static ObjectNode reorder(ObjectNode r) {
    r.put("authorization_id", AUTHORIZATION);
    r.put("policy_version", "2026-05-01.1");
    return r;
  }

  static String json(JsonNode node) {
    try {
      return MAPPER.writeValueAsString(node);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String ndjson(List<? extends JsonNode> receipts) {
    StringBuilder sb = new StringBuilder();
    for (JsonNode r : receipts) {
      sb.append(json(r)).append('\n');
    }
    return sb.toString();
  }

  static JsonNode parse(String json) {
    try {
      return MAPPER.readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static JsonNode vectors() {
    try (InputStream in =
        CliFixtures.class.getResourceAsStream("/vectors/receipt-format-v1-draft6.json")) {
      return MAPPER.readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static List<JsonNode> vectorReceipts(String group) {
    List<JsonNode> receipts = new ArrayList<>();
    vectors().get(group).forEach(v -> receipts.add(v.get("receipt")));
    return receipts;
  }

  static Path write(Path dir, String name, String content) {
    try {
      return Files.writeString(dir.resolve(name), content, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** What one run printed and returned. */
  record Run(int exitCode, String out, String err) {
    List<String> outLines() {
      return out.lines().toList();
    }
  }

  static Run run(Clock clock, String stdin, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    InputStream in = new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8));
    int code = new VerifyCli(clock, in, out, err).run(args);
    return new Run(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  static Run run(String... args) {
    return run(CLOCK, "", args);
  }
}
