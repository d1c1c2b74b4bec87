package dev.agentauth.verifier;

import static dev.agentauth.verifier.VerificationStep.ALGORITHM;
import static dev.agentauth.verifier.VerificationStep.KEY_NOT_ACTIVE;
import static dev.agentauth.verifier.VerificationStep.KEY_NOT_FOUND;
import static dev.agentauth.verifier.VerificationStep.PAIRING;
import static dev.agentauth.verifier.VerificationStep.PARSE;
import static dev.agentauth.verifier.VerificationStep.SCHEMA;
import static dev.agentauth.verifier.VerificationStep.SIGNATURE;
import static dev.agentauth.verifier.VerificationStep.TIMESTAMP;
import static dev.agentauth.verifier.VerificationStep.VERSION;
import static dev.agentauth.verifier.VerificationStep.WORKSPACE;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.agentauth.verifier.internal.Parallel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executor;
import org.bouncycastle.math.ec.rfc8032.Ed25519;

/**
 * Verifies signed receipts offline against one workspace's keys document.
 *
 * <p>Build it once from the trusted keys document (the {@code GET /v1/workspaces/{id}/keys}
 * response, fetched over a channel you trust or pinned), then verify any number of receipts:
 *
 * <pre>{@code
 * ReceiptVerifier verifier = ReceiptVerifier.builder()
 *     .keys(Path.of("ws_acme-keys.json"))
 *     .build();
 * VerificationResult result = verifier.verify(receiptJson);
 * if (!result.valid()) {
 *   System.err.println(result.failedStep() + ": " + result.message());
 * }
 * }</pre>
 *
 * <h2>Inputs</h2>
 *
 * <p>Every {@code String} this API takes is JSON text, never a file name: {@link
 * Builder#keysJson(String)} and {@link #fromKeysJson(String)} take the keys document itself, {@link
 * #verify(String)} the receipt itself. A file is read with {@link Builder#keys(Path)} for the keys
 * document, and with {@code verify(Files.readAllBytes(path))} for a receipt. {@code byte[]} is
 * UTF-8 JSON; {@link JsonNode} is a document you parsed yourself. Text that is not JSON gets a
 * message saying so, and naming the {@code Path} form when the text looks like a file name.
 *
 * <h2>What verifies</h2>
 *
 * <p>A receipt verifies as the service served it: the {@code receipt} member of {@code GET
 * /v1/receipts/{id}} (in the Java client, {@code client.receipts().awaitSignedJson(...)} and {@code
 * chainJson(...)}), byte for byte or reformatted by a JSON tool. A receipt rebuilt from a typed
 * object (for instance the client's {@code SignedReceipt} serialized again) is not guaranteed to
 * verify: a typed object drops the members it does not know, which a newer service may sign.
 *
 * <h2>Steps and clock</h2>
 *
 * <p>{@link #verify(String)} runs the steps of {@link VerificationStep} in order and reports the
 * first that fails. It verifies the JSON as received: the text is parsed to a tree (duplicate
 * member names rejected) and the signature is checked over the canonical form of that tree without
 * its {@code signature} member ({@link Canonicalizer#signingPayload}); nothing is mapped to a typed
 * object and re-serialized. Verification never throws: malformed input, unexpected values and
 * crypto-layer errors all yield an invalid {@link VerificationResult} naming a step. {@link
 * #verifyOrThrow(String)} is the throwing variant.
 *
 * <p>{@link VerificationStep#TIMESTAMP} rejects a receipt issued more than 5 minutes after the
 * verifier's clock, which is the system clock unless {@link Builder#clock(Clock)} sets another. A
 * test whose server runs on a clock moved ahead of real time must give the verifier that clock.
 *
 * <p>A malformed keys document is a configuration error: {@link Builder#build()} throws {@link
 * KeysDocumentException}.
 *
 * <h2>Key pinning</h2>
 *
 * <p>Whoever serves the keys document decides what verifies. When the document comes over a channel
 * you do not fully trust (a URL, a copy handed over), pin the keys you expect by their {@link
 * KeyFingerprint}: {@link Builder#trustedKeyFingerprints(Collection)}. A receipt signed by a key of
 * the document that is not pinned then fails {@link VerificationStep#KEY_NOT_FOUND}, and a document
 * holding no pinned key at all is refused by {@link Builder#build()}. {@link #keyFingerprints()}
 * lists the fingerprints of a document you have checked.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class ReceiptVerifier {

  /** How far ahead of the verifier's clock {@code issued_at} may be (clock skew allowance). */
  static final Duration MAX_FUTURE_SKEW = Duration.ofMinutes(5);

  private static final String VERSION_1_0 = "1.0";
  private static final String ED25519 = "Ed25519";
  private static final int SIGNATURE_BYTES = 64;

  private final KeysDocument keys;
  private final Clock clock;

  /** The pinned key fingerprints, or {@code null} when every key of the document is trusted. */
  private final Set<String> pins;

  private ReceiptVerifier(KeysDocument keys, Clock clock, Set<String> pins) {
    this.keys = keys;
    this.clock = clock;
    this.pins = pins;
  }

  /**
   * Returns a builder; the keys document must be set ({@link Builder#keys(Path)}, {@link
   * Builder#keysJson(String)}, {@link Builder#keysJson(byte[])} or {@link Builder#keys(JsonNode)}),
   * the clock defaults to the system UTC clock.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Builds a verifier from a keys document given as JSON text, using the system UTC clock. Same as
   * {@code builder().keysJson(keysJson).build()}.
   *
   * @param keysJson the JSON text of the {@code GET /v1/workspaces/{id}/keys} response body (not a
   *     file name: for a file use {@code builder().keys(Path.of(...))})
   * @return the verifier
   * @throws KeysDocumentException if the text is not JSON or the document is malformed
   * @throws NullPointerException if {@code keysJson} is null
   */
  public static ReceiptVerifier fromKeysJson(String keysJson) {
    return builder().keysJson(keysJson).build();
  }

  /**
   * Returns the workspace this verifier accepts receipts of: the keys document's {@code
   * workspace_id}.
   *
   * @return the workspace id
   */
  public String workspaceId() {
    return keys.workspaceId;
  }

  /**
   * Returns the {@link KeyFingerprint} of every key of the keys document, pinned or not.
   *
   * @return an unmodifiable map from {@code key_id} to fingerprint ({@code SHA256:...}), iterating
   *     in the keys document's order
   */
  public Map<String, String> keyFingerprints() {
    Map<String, String> fingerprints = new LinkedHashMap<>();
    for (KeysDocument.Key key : keys.inOrder) {
      fingerprints.put(key.keyId(), key.fingerprint());
    }
    return Collections.unmodifiableMap(fingerprints);
  }

  /**
   * Returns the pinned key fingerprints this verifier was built with ({@link
   * Builder#trustedKeyFingerprints(Collection)}).
   *
   * @return the pins, or an empty set when no key is pinned (every key of the document is trusted)
   */
  public Set<String> trustedKeyFingerprints() {
    return pins == null ? Set.of() : pins;
  }

  /**
   * Verifies one receipt given as JSON text.
   *
   * @param json the JSON text of the signed receipt object (not a file name: for a file pass {@code
   *     Files.readAllBytes(path)} to {@link #verify(byte[])}); {@code null} or text that is not
   *     JSON is reported as a {@link VerificationStep#PARSE} failure
   * @return the result, naming the first failed step if any; never throws
   */
  public VerificationResult verify(String json) {
    return checkJson(json).result();
  }

  /**
   * Verifies one receipt given as UTF-8 JSON bytes.
   *
   * @param utf8 the signed receipt object, UTF-8 encoded; {@code null} or another encoding is
   *     reported as a {@link VerificationStep#PARSE} failure
   * @return the result, naming the first failed step if any; never throws
   */
  public VerificationResult verify(byte[] utf8) {
    return checkBytes(utf8).result();
  }

  /**
   * Verifies one receipt already parsed to a Jackson tree. The tree is read, never modified.
   * Duplicate member names cannot be detected at this level: parse with duplicate detection, or
   * pass the text to {@link #verify(String)}.
   *
   * @param receipt the signed receipt object; {@code null} is reported as a {@link
   *     VerificationStep#PARSE} failure
   * @return the result, naming the first failed step if any; never throws
   */
  public VerificationResult verify(JsonNode receipt) {
    return check(receipt).result();
  }

  /**
   * Verifies many receipts given as JSON text, spread over the threads of {@code executor}, for
   * instance an archive of receipts on every core:
   *
   * <pre>{@code
   * ExecutorService pool = Executors.newFixedThreadPool(Runtime.getRuntime().availableProcessors());
   * List<VerificationResult> results = verifier.verifyAll(receiptTexts, pool);
   * }</pre>
   *
   * <p>Each result is the one {@link #verify(String)} gives for that receipt, and the list keeps
   * the input order, so the outcome does not depend on the executor. The calling thread waits for
   * the work; it must not be one the executor needs to run it (do not call this from a task of a
   * single-thread executor you pass).
   *
   * @param receipts the JSON text of each receipt (null elements are reported as {@link
   *     VerificationStep#PARSE} failures)
   * @param executor runs the verification; the caller keeps ownership (it is not shut down)
   * @return one result per receipt, in input order
   * @throws NullPointerException if {@code receipts} or {@code executor} is null
   * @throws java.util.concurrent.RejectedExecutionException if {@code executor} refuses the work
   */
  public List<VerificationResult> verifyAll(List<String> receipts, Executor executor) {
    Objects.requireNonNull(receipts, "receipts");
    Objects.requireNonNull(executor, "executor");
    return Parallel.map(receipts, this::verify, executor);
  }

  /**
   * Verifies one receipt given as JSON text and throws if it is invalid.
   *
   * @param json the signed receipt object
   * @throws ReceiptVerificationException if any step fails; {@link
   *     ReceiptVerificationException#step()} names it
   */
  public void verifyOrThrow(String json) {
    VerificationResult result = verify(json);
    if (!result.valid()) {
      throw new ReceiptVerificationException(result);
    }
  }

  @Override
  public String toString() {
    return "ReceiptVerifier{workspace_id="
        + keys.workspaceId
        + ", keys="
        + keys.keys.keySet()
        + (pins == null ? "" : ", pinned=" + pins)
        + "}";
  }

  // ---------------------------------------------------------------------------------------------
  // Internals, shared with ChainVerifier.

  /** What the verifier learned from a receipt that passed the schema step. */
  record Facts(
      String receiptId,
      String workspaceId,
      String authorizationId,
      String event,
      String decision,
      Instant issuedAt) {}

  /** A result plus, when the receipt got past {@link VerificationStep#SCHEMA}, its facts. */
  record Checked(VerificationResult result, Facts facts) {}

  Checked checkJson(String json) {
    if (json == null) {
      return failed(PARSE, "receipt JSON is null", null);
    }
    JsonNode tree;
    try {
      tree = Json.READER.readTree(json);
    } catch (JsonProcessingException e) {
      if (Json.looksLikeFileName(json)) {
        return failed(
            PARSE,
            "receipt is not JSON text: expected the receipt's JSON text, found "
                + Json.show(json)
                + ", which looks like a file name; to verify a file, pass its bytes:"
                + " verify(Files.readAllBytes(Path.of("
                + Json.show(json)
                + ")))",
            null);
      }
      return failed(PARSE, "receipt is not valid JSON: " + Json.describe(e), null);
    } catch (RuntimeException e) {
      return failed(PARSE, "receipt could not be parsed: " + e, null);
    }
    return check(tree);
  }

  Checked checkBytes(byte[] utf8) {
    if (utf8 == null) {
      return failed(PARSE, "receipt bytes are null", null);
    }
    // Jackson would auto-detect UTF-16/32; receipts are UTF-8 only. UTF-8 JSON text never holds
    // a NUL byte, and 0xFE/0xFF never occur in UTF-8 at all.
    for (int i = 0; i < Math.min(4, utf8.length); i++) {
      int b = utf8[i] & 0xFF;
      if (b == 0x00 || b == 0xFE || b == 0xFF) {
        return failed(
            PARSE, "receipt is not UTF-8 JSON (byte 0x" + Integer.toHexString(b) + ")", null);
      }
    }
    JsonNode tree;
    try {
      tree = Json.READER.readTree(utf8);
    } catch (JsonProcessingException e) {
      return failed(PARSE, "receipt is not valid JSON: " + Json.describe(e), null);
    } catch (IOException | RuntimeException e) {
      return failed(PARSE, "receipt could not be parsed: " + e, null);
    }
    return check(tree);
  }

  Checked check(JsonNode tree) {
    if (tree == null || tree.isMissingNode()) {
      return failed(PARSE, "receipt is empty: expected a JSON object", null);
    }
    if (!tree.isObject()) {
      return failed(
          PARSE, "receipt must be a JSON object, found " + Canonicalizer.typeName(tree), null);
    }
    return new Run(tree).check();
  }

  private static Checked failed(VerificationStep step, String message, String receiptId) {
    return new Checked(VerificationResult.failure(step, message, receiptId), null);
  }

  /** One verification: the receipt's members, and the step being run (for unexpected errors). */
  private final class Run {
    private final JsonNode receipt;
    private VerificationStep step = PARSE;
    private String receiptId;
    private Facts facts;

    private JsonNode version;
    private JsonNode receiptIdNode;
    private JsonNode workspaceId;
    private JsonNode issuedAt;
    private JsonNode decision;
    private JsonNode reason;
    private JsonNode userId;
    private JsonNode agentId;
    private JsonNode scope;
    private JsonNode event;
    private JsonNode resource;
    private JsonNode context;
    private JsonNode authorizationId;
    private JsonNode policyVersion;
    private JsonNode policyEval;
    private JsonNode signature;
    private JsonNode sigAlg;
    private JsonNode sigKeyId;
    private JsonNode sigValue;
    private List<String> unknown;

    Run(JsonNode receipt) {
      this.receipt = receipt;
    }

    Checked check() {
      Canonicalizer.Sink sink = null;
      try {
        collectMembers();
        step = VERSION;
        String problem = checkVersion();
        if (problem != null) {
          return fail(problem);
        }
        step = SCHEMA;
        problem = checkSchema();
        if (problem != null) {
          return fail(problem);
        }
        Instant issued = Rfc3339.parse(issuedAt.textValue());
        if (issued == null) {
          return fail(
              "issued_at must be an RFC 3339 timestamp with timezone offset, like"
                  + " 2026-04-21T14:32:17.482Z; found "
                  + Json.show(issuedAt));
        }
        byte[] signatureBytes;
        String value = sigValue.textValue();
        try {
          signatureBytes = Base64Url.decode(value);
        } catch (IllegalArgumentException e) {
          return fail(
              "signature.value must be unpadded base64url (RFC 4648 §5) of exactly 64 bytes: "
                  + e.getMessage());
        }
        if (signatureBytes.length != SIGNATURE_BYTES) {
          return fail(
              "signature.value must be unpadded base64url of exactly 64 bytes; it decodes to "
                  + signatureBytes.length
                  + " bytes");
        }
        try {
          sink = Canonicalizer.writeSigningPayload(receipt);
        } catch (CanonicalizationException e) {
          return fail("receipt has no canonical form: " + e.getMessage());
        }
        String ev = event == null ? null : event.textValue();
        String dec = decision.textValue();
        facts =
            new Facts(
                receiptId, workspaceId.textValue(), authorizationId.textValue(), ev, dec, issued);

        step = PAIRING;
        problem = checkPairing(ev, dec);
        if (problem != null) {
          return fail(problem);
        }

        step = ALGORITHM;
        String alg = sigAlg.textValue();
        if (!ED25519.equals(alg)) {
          return fail("signature.alg must be \"Ed25519\"; found " + Json.show(sigAlg));
        }

        step = TIMESTAMP;
        Instant now = clock.instant();
        if (issued.isAfter(now.plus(MAX_FUTURE_SKEW))) {
          return fail(
              "issued_at "
                  + issuedAt.textValue()
                  + " is in the future: more than 5 minutes ahead of the verifier clock ("
                  + now
                  + ")");
        }

        step = WORKSPACE;
        if (!keys.workspaceId.equals(workspaceId.textValue())) {
          return fail(
              "workspace_id "
                  + Json.show(workspaceId)
                  + " does not match the keys document's workspace_id \""
                  + keys.workspaceId
                  + "\"");
        }

        step = KEY_NOT_FOUND;
        String keyId = sigKeyId.textValue();
        KeysDocument.Key key = keys.keys.get(keyId);
        if (key == null) {
          return fail(
              "no public key found for key_id "
                  + Json.show(sigKeyId)
                  + " in the keys document of workspace "
                  + keys.workspaceId);
        }
        if (pins != null && !pins.contains(key.fingerprint())) {
          return fail(
              "key \""
                  + keyId
                  + "\" is in the keys document of workspace "
                  + keys.workspaceId
                  + " but is not pinned: its fingerprint "
                  + key.fingerprint()
                  + " is not one of the trusted key fingerprints");
        }

        step = KEY_NOT_ACTIVE;
        if (!key.activeAt(issued)) {
          return fail(
              "key \""
                  + keyId
                  + "\" was not active at issued_at "
                  + issuedAt.textValue()
                  + ": its window is "
                  + key.window());
        }

        step = SIGNATURE;
        boolean ok =
            key.publicKey()
                .verify(Ed25519.Algorithm.Ed25519, null, sink.buf, 0, sink.len, signatureBytes, 0);
        if (!ok) {
          return fail(
              "signature verification failed: the Ed25519 signature does not match the canonical"
                  + " payload under key \""
                  + keyId
                  + "\"");
        }
        return new Checked(
            new VerificationResult(true, null, key.verifiedMessage(), receiptId), facts);
      } catch (RuntimeException | StackOverflowError e) {
        return fail("unexpected error while checking: " + e);
      } finally {
        if (sink != null) {
          sink.trim();
        }
      }
    }

    private Checked fail(String message) {
      return new Checked(VerificationResult.failure(step, message, receiptId), facts);
    }

    private void collectMembers() {
      for (Map.Entry<String, JsonNode> e : receipt.properties()) {
        JsonNode v = e.getValue();
        switch (e.getKey()) {
          case "version" -> version = v;
          case "receipt_id" -> receiptIdNode = v;
          case "workspace_id" -> workspaceId = v;
          case "issued_at" -> issuedAt = v;
          case "decision" -> decision = v;
          case "reason" -> reason = v;
          case "user_id" -> userId = v;
          case "agent_id" -> agentId = v;
          case "scope" -> scope = v;
          case "event" -> event = v;
          case "resource" -> resource = v;
          case "context" -> context = v;
          case "authorization_id" -> authorizationId = v;
          case "policy_version" -> policyVersion = v;
          case "policy_eval" -> policyEval = v;
          case "signature" -> signature = v;
          default -> {
            if (unknown == null) {
              unknown = new ArrayList<>(2);
            }
            unknown.add(e.getKey());
          }
        }
      }
      if (receiptIdNode != null && receiptIdNode.isTextual()) {
        receiptId = receiptIdNode.textValue();
      }
    }

    private String checkVersion() {
      if (version == null) {
        return "unsupported version: the version member is missing; expected \"1.0\"";
      }
      if (!version.isTextual() || !VERSION_1_0.equals(version.textValue())) {
        return "unsupported version " + Json.show(version) + "; expected \"1.0\"";
      }
      return null;
    }

    private String checkSchema() {
      if (unknown != null) {
        return "unknown top-level fields: " + unknown;
      }
      List<String> missing = null;
      missing = missing(missing, "receipt_id", receiptIdNode);
      missing = missing(missing, "workspace_id", workspaceId);
      missing = missing(missing, "issued_at", issuedAt);
      missing = missing(missing, "decision", decision);
      missing = missing(missing, "reason", reason);
      missing = missing(missing, "user_id", userId);
      missing = missing(missing, "agent_id", agentId);
      missing = missing(missing, "resource", resource);
      missing = missing(missing, "context", context);
      missing = missing(missing, "authorization_id", authorizationId);
      missing = missing(missing, "policy_version", policyVersion);
      missing = missing(missing, "signature", signature);
      if (missing != null) {
        return "missing top-level fields: " + missing;
      }
      if (scope != null && event != null) {
        return "receipt has both 'scope' and 'event'; exactly one is allowed";
      }
      if (scope == null && event == null) {
        return "receipt has neither 'scope' nor 'event'; exactly one is required";
      }
      String problem;
      if ((problem = string("receipt_id", receiptIdNode)) != null
          || (problem = string("workspace_id", workspaceId)) != null
          || (problem = string("issued_at", issuedAt)) != null
          || (problem = string("decision", decision)) != null
          || (problem = string("reason", reason)) != null
          || (problem = stringOrNull("user_id", userId)) != null
          || (problem = stringOrNull("agent_id", agentId)) != null
          || (scope != null && (problem = string("scope", scope)) != null)
          || (event != null && (problem = string("event", event)) != null)
          || (problem = stringOrNull("resource", resource)) != null
          || (problem = stringOrNull("authorization_id", authorizationId)) != null
          || (problem = string("policy_version", policyVersion)) != null) {
        return problem;
      }
      if (!context.isObject()) {
        return "context must be an object, found " + Canonicalizer.typeName(context);
      }
      if ((problem = checkSignatureShape()) != null) {
        return problem;
      }
      if (event != null) {
        String ev = event.textValue();
        boolean lifecycle;
        switch (ev) {
          case "authorization.create", "authorization.revoke" -> lifecycle = true;
          case "escalation.resolve" -> lifecycle = false;
          default -> {
            return "event must be one of authorization.create, authorization.revoke,"
                + " escalation.resolve; found "
                + Json.show(event);
          }
        }
        if (policyEval != null) {
          return "policy_eval must be absent on event receipts";
        }
        if (authorizationId.isNull()) {
          return ev
              + " receipt must have non-null authorization_id (event receipts belong to an"
              + " authorization)";
        }
        if (lifecycle && !resource.isNull()) {
          return ev + " receipt must have null resource; found " + Json.show(resource);
        }
      } else if (policyEval != null) {
        return PolicyEvalShape.check(policyEval);
      }
      return null;
    }

    private String checkSignatureShape() {
      if (!signature.isObject()) {
        return "signature must be an object {alg, key_id, value}, found "
            + Canonicalizer.typeName(signature);
      }
      List<String> extra = null;
      for (Map.Entry<String, JsonNode> e : signature.properties()) {
        switch (e.getKey()) {
          case "alg" -> sigAlg = e.getValue();
          case "key_id" -> sigKeyId = e.getValue();
          case "value" -> sigValue = e.getValue();
          default -> {
            if (extra == null) {
              extra = new ArrayList<>(2);
            }
            extra.add(e.getKey());
          }
        }
      }
      if (extra != null) {
        return "signature has unknown fields: " + extra + " (exactly alg, key_id, value)";
      }
      List<String> missing = null;
      missing = missing(missing, "alg", sigAlg);
      missing = missing(missing, "key_id", sigKeyId);
      missing = missing(missing, "value", sigValue);
      if (missing != null) {
        return "signature missing fields: " + missing;
      }
      String problem;
      if ((problem = string("signature.alg", sigAlg)) != null
          || (problem = string("signature.key_id", sigKeyId)) != null
          || (problem = string("signature.value", sigValue)) != null) {
        return problem;
      }
      return null;
    }

    private String checkPairing(String ev, String dec) {
      if (ev == null) {
        return switch (dec) {
          case "allow", "deny", "confirm", "escalate" -> null;
          case "authorization_granted",
              "authorization_revoked",
              "escalation_approved",
              "escalation_rejected" ->
              "decision \""
                  + dec
                  + "\" requires an event receipt; a scope receipt carries allow, deny, confirm or"
                  + " escalate";
          default ->
              "action receipt must have decision in [allow, deny, confirm, escalate];"
                  + " found "
                  + Json.show(decision);
        };
      }
      return switch (ev) {
        case "authorization.create" ->
            "authorization_granted".equals(dec)
                ? null
                : "authorization.create receipt must have decision \"authorization_granted\"; found "
                    + Json.show(decision);
        case "authorization.revoke" ->
            "authorization_revoked".equals(dec)
                ? null
                : "authorization.revoke receipt must have decision \"authorization_revoked\"; found "
                    + Json.show(decision);
        default ->
            "escalation_approved".equals(dec) || "escalation_rejected".equals(dec)
                ? null
                : "escalation.resolve receipt must have decision \"escalation_approved\" or"
                    + " \"escalation_rejected\"; found "
                    + Json.show(decision);
      };
    }
  }

  private static List<String> missing(List<String> missing, String name, JsonNode v) {
    if (v != null) {
      return missing;
    }
    List<String> list = missing == null ? new ArrayList<>(4) : missing;
    list.add(name);
    return list;
  }

  private static String string(String name, JsonNode v) {
    return v.isTextual() ? null : name + " must be a string, found " + Json.show(v);
  }

  private static String stringOrNull(String name, JsonNode v) {
    return v.isTextual() || v.isNull()
        ? null
        : name + " must be a string or null, found " + Json.show(v);
  }

  /**
   * Builds a {@link ReceiptVerifier}. Not thread-safe; the verifier it builds is.
   *
   * <p>The keys document is given in one of four forms: a file ({@link #keys(Path)}), JSON text
   * ({@link #keysJson(String)}), UTF-8 JSON bytes ({@link #keysJson(byte[])}) or a parsed tree
   * ({@link #keys(JsonNode)}). Setting it again replaces the earlier one.
   */
  public static final class Builder {
    private JsonNode keysTree;
    private String keysText;
    private byte[] keysBytes;
    private Path keysFile;
    private Clock clock = Clock.systemUTC();
    private Set<String> pins;

    private Builder() {}

    /**
     * Reads the keys document from a file (UTF-8 JSON) when {@link #build()} runs.
     *
     * @param file the file holding the {@code GET /v1/workspaces/{id}/keys} response
     * @return this builder
     * @throws NullPointerException if {@code file} is null
     */
    public Builder keys(Path file) {
      Objects.requireNonNull(file, "file");
      clearKeys();
      this.keysFile = file;
      return this;
    }

    /**
     * Uses the keys document given as JSON text, for instance the body the Java client's {@code
     * workspaces().keysJson(workspaceId)} returns. The text is parsed at {@link #build()}.
     *
     * @param json the JSON text of the {@code GET /v1/workspaces/{id}/keys} response body; not a
     *     file name (for a file use {@link #keys(Path)})
     * @return this builder
     * @throws NullPointerException if {@code json} is null
     */
    public Builder keysJson(String json) {
      Objects.requireNonNull(json, "json");
      clearKeys();
      this.keysText = json;
      return this;
    }

    /**
     * Uses the keys document given as UTF-8 JSON bytes (copied; parsed at {@link #build()}).
     *
     * @param utf8 the {@code GET /v1/workspaces/{id}/keys} response body, UTF-8 encoded
     * @return this builder
     * @throws NullPointerException if {@code utf8} is null
     */
    public Builder keysJson(byte[] utf8) {
      Objects.requireNonNull(utf8, "utf8");
      clearKeys();
      this.keysBytes = utf8.clone();
      return this;
    }

    /**
     * Uses the keys document given as a Jackson tree (read at {@link #build()}, not retained).
     *
     * @param document the keys document object
     * @return this builder
     * @throws NullPointerException if {@code document} is null
     */
    public Builder keys(JsonNode document) {
      Objects.requireNonNull(document, "document");
      clearKeys();
      this.keysTree = document;
      return this;
    }

    /**
     * Sets the clock {@link VerificationStep#TIMESTAMP} compares {@code issued_at} with. Defaults
     * to {@link Clock#systemUTC()}, which rejects a receipt issued more than 5 minutes in its
     * future: a test whose server runs on a clock moved ahead of real time passes that clock here.
     *
     * @param clock the clock
     * @return this builder
     * @throws NullPointerException if {@code clock} is null
     */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Pins the keys this verifier trusts: only a key of the keys document whose {@link
     * KeyFingerprint} is one of {@code fingerprints} may verify a receipt. A receipt signed by
     * another key of the document fails at {@link VerificationStep#KEY_NOT_FOUND} with a message
     * naming its {@code key_id}; a document holding none of the pinned keys is refused by {@link
     * #build()}. Pins that match no key of the document are allowed (a key published later, for
     * instance), as long as one matches. Without this call, every key of the document is trusted.
     * Calling it again replaces the earlier pins.
     *
     * @param fingerprints one or more fingerprints, each {@code SHA256:} and the unpadded base64url
     *     SHA-256 of a raw public key, as {@link KeyFingerprint#of(byte[])} returns it (copied)
     * @return this builder
     * @throws IllegalArgumentException if {@code fingerprints} is empty or one of them is malformed
     *     ({@link KeyFingerprint#requireValid(String)} names the defect)
     * @throws NullPointerException if {@code fingerprints} or one of its elements is null
     */
    public Builder trustedKeyFingerprints(Collection<String> fingerprints) {
      Objects.requireNonNull(fingerprints, "fingerprints");
      if (fingerprints.isEmpty()) {
        throw new IllegalArgumentException(
            "no trusted key fingerprints given: pass at least one, or do not call"
                + " trustedKeyFingerprints to trust every key of the keys document");
      }
      Set<String> copy = new LinkedHashSet<>();
      for (String fingerprint : fingerprints) {
        copy.add(KeyFingerprint.requireValid(fingerprint));
      }
      this.pins = Collections.unmodifiableSet(copy);
      return this;
    }

    /**
     * Parses and validates the keys document and builds the verifier.
     *
     * @return the verifier
     * @throws IllegalStateException if no keys document was set
     * @throws KeysDocumentException if the document cannot be read, is not JSON, or is malformed,
     *     or if keys are pinned and the document holds none of them (the message lists the
     *     document's fingerprints)
     */
    public ReceiptVerifier build() {
      JsonNode doc;
      if (keysTree != null) {
        doc = keysTree;
      } else if (keysText != null) {
        doc = parse(keysText);
      } else if (keysBytes != null) {
        doc = parse(keysBytes);
      } else if (keysFile != null) {
        String text;
        try {
          text = Files.readString(keysFile);
        } catch (IOException | RuntimeException e) {
          throw new KeysDocumentException("cannot read keys document " + keysFile + ": " + e, e);
        }
        try {
          doc = Json.READER.readTree(text);
        } catch (JsonProcessingException e) {
          throw new KeysDocumentException(
              "keys document " + keysFile + " is not valid JSON: " + Json.describe(e), e);
        } catch (RuntimeException e) {
          throw new KeysDocumentException(
              "keys document " + keysFile + " could not be parsed: " + e, e);
        }
      } else {
        throw new IllegalStateException(
            "no keys document set: call keys(Path), keysJson(String), keysJson(byte[]) or"
                + " keys(JsonNode)");
      }
      KeysDocument document = KeysDocument.parse(doc);
      if (pins != null
          && document.inOrder.stream().noneMatch(k -> pins.contains(k.fingerprint()))) {
        StringBuilder found = new StringBuilder();
        for (KeysDocument.Key key : document.inOrder) {
          found.append(found.length() == 0 ? "" : ", ");
          found.append(Json.show(key.keyId())).append(' ').append(key.fingerprint());
        }
        throw new KeysDocumentException(
            "the keys document of workspace "
                + document.workspaceId
                + " holds none of the pinned keys "
                + pins
                + "; its keys are "
                + found);
      }
      return new ReceiptVerifier(document, clock, pins);
    }

    private void clearKeys() {
      keysTree = null;
      keysText = null;
      keysBytes = null;
      keysFile = null;
    }

    private static JsonNode parse(String text) {
      try {
        return Json.READER.readTree(text);
      } catch (JsonProcessingException e) {
        if (Json.looksLikeFileName(text)) {
          throw new KeysDocumentException(
              "keys document is not JSON text: expected the document's JSON text, found "
                  + Json.show(text)
                  + ", which looks like a file name; to read the document from a file, use"
                  + " keys(Path.of("
                  + Json.show(text)
                  + "))",
              e);
        }
        throw new KeysDocumentException(
            "keys document is not valid JSON: " + Json.describe(e) + " (expected JSON text)", e);
      } catch (RuntimeException e) {
        throw new KeysDocumentException("keys document could not be parsed: " + e, e);
      }
    }

    private static JsonNode parse(byte[] utf8) {
      for (int i = 0; i < Math.min(4, utf8.length); i++) {
        int b = utf8[i] & 0xFF;
        if (b == 0x00 || b == 0xFE || b == 0xFF) {
          throw new KeysDocumentException(
              "keys document is not UTF-8 JSON (byte 0x" + Integer.toHexString(b) + ")");
        }
      }
      try {
        return Json.READER.readTree(utf8);
      } catch (JsonProcessingException e) {
        throw new KeysDocumentException(
            "keys document is not valid JSON: " + Json.describe(e) + " (expected UTF-8 JSON)", e);
      } catch (IOException | RuntimeException e) {
        throw new KeysDocumentException("keys document could not be parsed: " + e, e);
      }
    }
  }
}
