package dev.agentauth.verifier.vectors;

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
import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.verifier.VerificationStep;
import dev.agentauth.verifier.signing.ReceiptSigner;
import dev.agentauth.verifier.vectors.ReferenceCanonicalForm.Mistake;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.OffsetDateTime;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Generates {@code docs/receipt-vectors.json}, the project's own receipt test vectors (see {@code
 * docs/receipt-format.md}, section "Test vectors").
 *
 * <p>Everything is fixed: the key seeds are SHA-256 hashes of published strings, the receipts and
 * their ids are spelled out below, and Ed25519 signatures are deterministic. The same code
 * therefore always writes the same bytes; {@code OwnVectorsTest} checks that the committed file is
 * exactly what this class produces.
 *
 * <p>Regenerate after changing this class, from the repository root:
 *
 * <pre>
 * mvn -B -q -pl sdk-verifier test -Dtest=OwnVectorsTest -DregenerateVectors=true
 * </pre>
 *
 * <p>or run {@link #main} (from the repository root or from {@code sdk-verifier/}) with the test
 * classpath, optionally passing the output path.
 *
 * <p>The payloads are signed as written by {@link ReferenceCanonicalForm}, not by the library's
 * canonicalizer, so the tests comparing the two are not circular.
 */
public final class GenerateReceiptVectors {

  /** The vectors file's name inside {@code docs/}. */
  public static final String FILE_NAME = "receipt-vectors.json";

  static final String WORKSPACE_ID = "ws_vectors";
  static final String KEY_ID = WORKSPACE_ID + "/test-key-1";
  static final String RETIRED_KEY_ID = WORKSPACE_ID + "/test-key-0";
  static final String KEY_SEED_TEXT = "agentauth test vector key";
  static final String RETIRED_KEY_SEED_TEXT = "agentauth test vector key (retired)";
  static final String UNPUBLISHED_KEY_SEED_TEXT = "agentauth test vector key (unpublished)";
  static final String VERIFY_AT = "2026-11-22T12:00:00.000Z";
  static final String POLICY_VERSION = "2026-11-22.1";
  static final String RETIRED_KEY_FROM = "2026-05-01T00:00:00.000Z";
  static final String ROTATED_AT = "2026-11-01T00:00:00.000Z";

  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final char[] CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ".toCharArray();
  private static final Base64.Encoder B64URL = Base64.getUrlEncoder().withoutPadding();

  /** The parties of the vectors: one authorization each (its id, user and agent). */
  private record Party(String authorizationId, String userId, String agentId) {}

  /** The main authorization: created, used in every way, revoked. */
  private static final Party A =
      new Party(authId("2026-11-22T08:00:04.137Z", "A"), "usr_5f2c91", "agent_travel_desk");

  /** A budgeted authorization created from a bundle. */
  private static final Party B =
      new Party(authId("2026-11-22T10:00:00.042Z", "B"), "usr_a81d07", "agent_flight_booker");

  /** An authorization that has expired. */
  private static final Party C =
      new Party(authId("2026-10-21T16:30:00.000Z", "C"), "usr_0c33e2", "agent_report_writer");

  /** An older authorization, used across the key rotation of 2026-11-01. */
  private static final Party D =
      new Party(authId("2026-10-20T07:45:12.000Z", "D"), "usr_93be40", "agent_inbox_triage");

  /** An authorization id the workspace never issued. */
  private static final Party NOT_FOUND =
      new Party(authId("2026-11-20T00:00:00.000Z", "never issued"), null, null);

  private static final String SESSION = "sess_7d1f0a2c";
  private static final String ESC_TARGETED = "esc_" + ulid("2026-11-22T08:04:10.000Z", "esc 1");
  private static final String ESC_UNTARGETED = "esc_" + ulid("2026-11-22T08:11:20.004Z", "esc 2");
  private static final String CONFIRMATION = "cfa_" + ulid("2026-11-22T08:02:51.318Z", "cfa 1");
  private static final String FILE = "drive:/shared/q3-forecast.xlsx";
  private static final String HR_EXPORT = "hr:headcount/2026";
  private static final String PAYEE = "payee:acct_5512";

  private final ReceiptSigner key = signer(KEY_ID, KEY_SEED_TEXT);
  private final ReceiptSigner retiredKey = signer(RETIRED_KEY_ID, RETIRED_KEY_SEED_TEXT);
  private final ReceiptSigner unpublishedKey = signer(KEY_ID, UNPUBLISHED_KEY_SEED_TEXT);

  /** Unsigned and signed receipts of the valid and chain-only vectors, by name. */
  private final Map<String, ObjectNode> unsigned = new LinkedHashMap<>();

  private final Map<String, ObjectNode> signed = new LinkedHashMap<>();

  private final ArrayNode valid = F.arrayNode();
  private final ArrayNode invalid = F.arrayNode();
  private final ArrayNode chainOnly = F.arrayNode();
  private final ArrayNode chains = F.arrayNode();

  private GenerateReceiptVectors() {}

  /**
   * Writes the vectors file.
   *
   * @param args optionally the output path; by default {@code docs/receipt-vectors.json} of the
   *     repository, found from the working directory (the repository root or {@code sdk-verifier})
   * @throws IOException if the file cannot be written
   */
  public static void main(String[] args) throws IOException {
    Path out = args.length > 0 ? Path.of(args[0]) : defaultPath();
    Files.writeString(out, render(), UTF_8);
    System.out.println("wrote " + out.toAbsolutePath().normalize());
  }

  /** The vectors file's path, from the repository root or from a module directory. */
  static Path defaultPath() {
    Path fromRoot = Path.of("docs", FILE_NAME);
    return Files.isDirectory(Path.of("sdk-verifier")) ? fromRoot : Path.of("..", "docs", FILE_NAME);
  }

  /**
   * Returns the complete vectors file: UTF-8 JSON text, LF line ends, ending with a newline.
   *
   * @return the file content
   */
  public static String render() {
    return new GenerateReceiptVectors().build();
  }

  private String build() {
    validVectors();
    chainOnlyVectors();
    invalidVectors();
    chainVectors();

    ObjectNode root = F.objectNode();
    root.put(
        "description",
        "agentauth receipt format 1.0 test vectors. See docs/receipt-format.md, section"
            + " 'Test vectors'. Every receipt in 'valid' and 'chain_only' must verify against"
            + " 'public_keys' with the verifier clock at 'verify_at'; every receipt in 'invalid'"
            + " must be rejected, by this project's verifier at exactly 'expected_step'.");
    root.put("format_version", "1.0");
    root.put(
        "generator",
        "sdk-verifier/src/test/java/dev/agentauth/verifier/vectors/GenerateReceiptVectors.java");
    root.put(
        "regenerate",
        "mvn -B -q -pl sdk-verifier test -Dtest=OwnVectorsTest -DregenerateVectors=true");
    root.put("verify_at", VERIFY_AT);
    root.put("max_future_skew_seconds", 300);
    root.put("key_seed_hex", HexFormat.of().formatHex(sha256(KEY_SEED_TEXT)));
    root.put("key_seed_source", "SHA-256 of the UTF-8 bytes of \"" + KEY_SEED_TEXT + "\"");
    root.put("key_id", KEY_ID);
    root.put("retired_key_seed_hex", HexFormat.of().formatHex(sha256(RETIRED_KEY_SEED_TEXT)));
    root.put(
        "retired_key_seed_source",
        "SHA-256 of the UTF-8 bytes of \"" + RETIRED_KEY_SEED_TEXT + "\"");
    root.put("retired_key_id", RETIRED_KEY_ID);
    root.set("public_keys", keysDocument());
    root.set("valid", valid);
    root.set("chain_only", chainOnly);
    root.set("invalid", invalid);
    root.set("chains", chains);
    return write(root);
  }

  private ObjectNode keysDocument() {
    ObjectNode doc = F.objectNode();
    doc.put("workspace_id", WORKSPACE_ID);
    ArrayNode keys = doc.putArray("keys");
    ObjectNode retired = keys.addObject();
    retired.put("key_id", RETIRED_KEY_ID);
    retired.put("alg", "Ed25519");
    retired.put("public_key", retiredKey.publicKeyBase64Url());
    retired.put("active_from", RETIRED_KEY_FROM);
    retired.put("active_until", ROTATED_AT);
    ObjectNode current = keys.addObject();
    current.put("key_id", KEY_ID);
    current.put("alg", "Ed25519");
    current.put("public_key", key.publicKeyBase64Url());
    current.put("active_from", ROTATED_AT);
    current.putNull("active_until");
    return doc;
  }

  // ---------------------------------------------------------------------------------------------
  // Valid receipts: every kind the reference server issues, plus format-level cases.

  private void validVectors() {
    // Authorization A: its whole life, in issuance order.
    ObjectNode aCreate =
        event(
            "authorization_create_inline",
            "2026-11-22T08:00:04.137Z",
            "authorization.create",
            "authorization_granted",
            "authorization_created",
            A,
            null,
            createContextA());
    addValid(
        "authorization_create_inline",
        "authorization.create receipt of an inline authorization: the context pins the whole"
            + " rule set (scopes with constraints, confirmation and escalation lists, targets,"
            + " expiry, metadata); budget_limit_micros and bundle_id are present as null.",
        aCreate);

    addValid(
        "allow_scope_active",
        "allow / authorization_granted_scope_active with the check's context (client_context)"
            + " and session_id.",
        scope(
            "allow_scope_active",
            "2026-11-22T08:01:12.480Z",
            "allow",
            "authorization_granted_scope_active",
            A,
            "calendar.read",
            "calendar:team-offsite",
            context(client("initiated_by", "user", "locale", "en-GB"), SESSION)));

    ObjectNode payment = client("initiated_by", "user", "currency", "EUR");
    payment.put("amount_minor", 129900);
    addValid(
        "confirm_requires_user_confirmation",
        "confirm / scope_requires_user_confirmation: the scope is in requires_confirm_for and no"
            + " confirmation is active. The nonce is in the check result, not in the receipt.",
        scope(
            "confirm_requires_user_confirmation",
            "2026-11-22T08:02:30.015Z",
            "confirm",
            "scope_requires_user_confirmation",
            A,
            "payments.send",
            PAYEE,
            context(payment.deepCopy(), SESSION)));

    ObjectNode viaConfirmation = context(payment.deepCopy(), SESSION);
    viaConfirmation.put("confirmation_authorization_id", CONFIRMATION);
    viaConfirmation
        .putObject("agentauth_confirmation")
        .put("key_id", "key_01m8149y194g5ebxwkhfr57w00")
        .put("role", "tool_server")
        .put("via", "mcp_elicitation")
        .put("confirmed_at", "2026-11-22T08:02:51.318Z");
    addValid(
        "allow_via_confirmation",
        "allow / authorization_granted_via_confirmation: re-check inside the approved"
            + " confirmation's window; context.confirmation_authorization_id names the approval,"
            + " context.agentauth_confirmation the key and role that approved it, where the user"
            + " answered and when.",
        scope(
            "allow_via_confirmation",
            "2026-11-22T08:03:01.902Z",
            "allow",
            "authorization_granted_via_confirmation",
            A,
            "payments.send",
            PAYEE,
            viaConfirmation));

    ObjectNode escalateCtx = context(null, SESSION);
    escalateCtx.put("escalation_id", ESC_TARGETED);
    addValid(
        "escalate_with_escalation_target",
        "escalate / escalation_required for a scope that has an escalation target (files.delete"
            + " -> security). The target (escalation_to) appears in the check result only; the"
            + " receipt carries context.escalation_id.",
        scope(
            "escalate_with_escalation_target",
            "2026-11-22T08:04:10.000Z",
            "escalate",
            "escalation_required",
            A,
            "files.delete",
            FILE,
            escalateCtx));

    ObjectNode approvedCtx = F.objectNode();
    approvedCtx.put("escalation_id", ESC_TARGETED);
    approvedCtx.put("scope", "files.delete");
    approvedCtx.put("resolved_by", "approver_sec_17");
    approvedCtx.put("note", "Approved: duplicate of the archived copy");
    addValid(
        "escalation_resolve_approved",
        "escalation.resolve / escalation_approved (decision and reason alike); resource is the"
            + " escalation's resource; context has escalation_id, scope, resolved_by and the"
            + " optional note.",
        event(
            "escalation_resolve_approved",
            "2026-11-22T08:09:44.321Z",
            "escalation.resolve",
            "escalation_approved",
            "escalation_approved",
            A,
            FILE,
            approvedCtx));

    ObjectNode viaEscalation = context(null, SESSION);
    viaEscalation.put("escalation_id", ESC_TARGETED);
    addValid(
        "allow_via_escalation",
        "allow / authorization_granted_via_escalation: the first re-check after the approval"
            + " consumes it; context.escalation_id names the escalation.",
        scope(
            "allow_via_escalation",
            "2026-11-22T08:10:02.555Z",
            "allow",
            "authorization_granted_via_escalation",
            A,
            "files.delete",
            FILE,
            viaEscalation));

    ObjectNode untargeted = F.objectNode();
    untargeted.put("escalation_id", ESC_UNTARGETED);
    addValid(
        "escalate_without_escalation_target",
        "escalate / escalation_required for a scope with no escalation target (the check result"
            + " omits escalation_to); no client_context, no session_id.",
        scope(
            "escalate_without_escalation_target",
            "2026-11-22T08:11:20.004Z",
            "escalate",
            "escalation_required",
            A,
            "hr.records.export",
            HR_EXPORT,
            untargeted));

    ObjectNode rejectedCtx = F.objectNode();
    rejectedCtx.put("escalation_id", ESC_UNTARGETED);
    rejectedCtx.put("scope", "hr.records.export");
    rejectedCtx.put("resolved_by", "approver_hr_04");
    addValid(
        "escalation_resolve_rejected",
        "escalation.resolve / escalation_rejected, without a note.",
        event(
            "escalation_resolve_rejected",
            "2026-11-22T08:15:00.250Z",
            "escalation.resolve",
            "escalation_rejected",
            "escalation_rejected",
            A,
            HR_EXPORT,
            rejectedCtx));

    addValid(
        "deny_escalation_rejected",
        "deny / escalation_rejected: re-check while the rejected escalation's lifetime lasts."
            + " The server records no escalation_id on this deny.",
        scope(
            "deny_escalation_rejected",
            "2026-11-22T08:15:31.777Z",
            "deny",
            "escalation_rejected",
            A,
            "hr.records.export",
            HR_EXPORT,
            F.objectNode()));

    addValid(
        "deny_scope_not_authorized_scope_missing",
        "deny / scope_not_authorized: the scope is not in the authorization; resource null.",
        scope(
            "deny_scope_not_authorized_scope_missing",
            "2026-11-22T08:20:05.010Z",
            "deny",
            "scope_not_authorized",
            A,
            "contacts.export",
            null,
            context(null, SESSION)));

    addValid(
        "deny_scope_not_authorized_resource_pattern",
        "deny / scope_not_authorized: the resource does not match the scope's resource_pattern"
            + " (mailbox:team-*).",
        scope(
            "deny_scope_not_authorized_resource_pattern",
            "2026-11-22T08:21:00.300Z",
            "deny",
            "scope_not_authorized",
            A,
            "email.send",
            "mailbox:ceo",
            context(null, SESSION)));

    ObjectNode byAgent = client("initiated_by", "agent", "currency", "EUR");
    byAgent.put("amount_minor", 129900);
    addValid(
        "deny_scope_not_authorized_initiator",
        "deny / scope_not_authorized: context.initiated_by is not in allowed_initiators"
            + " (constraints are checked before the confirmation step).",
        scope(
            "deny_scope_not_authorized_initiator",
            "2026-11-22T08:21:40.600Z",
            "deny",
            "scope_not_authorized",
            A,
            "payments.send",
            PAYEE,
            context(byAgent, SESSION)));

    addValid(
        "deny_resource_tombstoned",
        "deny / resource_tombstoned: a workspace tombstone blocks the resource.",
        scope(
            "deny_resource_tombstoned",
            "2026-11-22T08:25:00.999Z",
            "deny",
            "resource_tombstoned",
            A,
            "calendar.read",
            "calendar:retired-board",
            context(client("initiated_by", "user"), null)));

    addValid(
        "deny_rate_limit_exceeded",
        "deny / rate_limit_exceeded: max_per_day (3) allows already counted today.",
        scope(
            "deny_rate_limit_exceeded",
            "2026-11-22T08:30:12.345Z",
            "deny",
            "rate_limit_exceeded",
            A,
            "email.send",
            "mailbox:team-sales",
            context(null, SESSION)));

    addValid(
        "allow_unicode_and_control_characters",
        "allow whose client_context exercises the string and key rules: control characters"
            + " (escaped as lower-case \\u00xx, even newline and tab), quote and backslash,"
            + " raw non-ASCII (accents, CJK, a flag emoji, U+2028, U+FEFF), DEL and '/' left"
            + " unescaped, a key outside the BMP that sorts before U+FB01 by UTF-16 code units"
            + " (but after it by code point), the empty key, and safe integers at the limits.",
        scope(
            "allow_unicode_and_control_characters",
            "2026-11-22T08:40:00.001Z",
            "allow",
            "authorization_granted_scope_active",
            A,
            "calendar.read",
            "calendar:\u00e9quipe-paris",
            context(unicodeClientContext(), SESSION)));

    ObjectNode revokeCtx = F.objectNode();
    revokeCtx.put("revoked_by", "admin_ops_3");
    revokeCtx.put("notes", "Contract ended.\nSee OPS-1142.");
    addValid(
        "authorization_revoke",
        "authorization.revoke / authorization_revoked; resource null; context has revoked_by and"
            + " the optional notes (here with a newline).",
        event(
            "authorization_revoke",
            "2026-11-22T09:00:00.500Z",
            "authorization.revoke",
            "authorization_revoked",
            "authorization_revoked",
            A,
            null,
            revokeCtx));

    addValid(
        "deny_authorization_revoked",
        "deny / authorization_revoked: a check after the revocation (the only decision a scope"
            + " receipt may carry after it).",
        scope(
            "deny_authorization_revoked",
            "2026-11-22T09:05:17.020Z",
            "deny",
            "authorization_revoked",
            A,
            "calendar.read",
            "calendar:team-offsite",
            context(null, SESSION)));

    // Authorization B: budgeted, from a bundle.
    addValid(
        "authorization_create_bundle_budgeted",
        "authorization.create receipt of a budgeted authorization created from a bundle:"
            + " budget_limit_micros and bundle_id set, empty confirmation/escalation lists and"
            + " targets.",
        event(
            "authorization_create_bundle_budgeted",
            "2026-11-22T10:00:00.042Z",
            "authorization.create",
            "authorization_granted",
            "authorization_created",
            B,
            null,
            createContextB()));

    addValid(
        "allow_budget_evaluated",
        "allow with the budget block: spent_after_micros = spent_micros + estimated_cost_micros.",
        scope(
            "allow_budget_evaluated",
            "2026-11-22T10:05:30.700Z",
            "allow",
            "authorization_granted_scope_active",
            B,
            "flights.book",
            "pnr:QX7Z2B",
            budgetContext(0, 3_000_000, true)));

    addValid(
        "deny_budget_exceeded",
        "deny / budget_exceeded: spent + estimate > limit; spent_after_micros = spent_micros.",
        scope(
            "deny_budget_exceeded",
            "2026-11-22T10:20:00.000Z",
            "deny",
            "budget_exceeded",
            B,
            "flights.book",
            "pnr:LM4K9D",
            budgetContext(3_000_000, 2_500_000, false)));

    // Authorization C: expired; and an id that was never issued.
    addValid(
        "deny_authorization_expired",
        "deny / authorization_expired.",
        scope(
            "deny_authorization_expired",
            "2026-11-22T11:00:00.000Z",
            "deny",
            "authorization_expired",
            C,
            "reports.generate",
            "report:q3-board-pack",
            context(null, "sess_c0ffee01")));

    addValid(
        "deny_authorization_not_found",
        "deny / authorization_not_found: authorization_id is the requested id; user_id and"
            + " agent_id are present and null.",
        scope(
            "deny_authorization_not_found",
            "2026-11-22T11:10:09.090Z",
            "deny",
            "authorization_not_found",
            NOT_FOUND,
            "calendar.read",
            null,
            context(client("initiated_by", "agent"), null)));

    // Authorization D: across the key rotation at 2026-11-01T00:00:00.000Z.
    addValid(
        "allow_retired_key_last_millisecond",
        "signed by the retired key test-key-0 at the last millisecond of its window"
            + " (active_until is exclusive).",
        scope(
            "allow_retired_key_last_millisecond",
            "2026-10-31T23:59:59.999Z",
            "allow",
            "authorization_granted_scope_active",
            D,
            "email.read",
            "mailbox:support",
            F.objectNode()),
        retiredKey);

    addValid(
        "allow_current_key_first_millisecond",
        "signed by test-key-1 at the first millisecond of its window (active_from is inclusive).",
        scope(
            "allow_current_key_first_millisecond",
            ROTATED_AT,
            "allow",
            "authorization_granted_scope_active",
            D,
            "email.read",
            "mailbox:support",
            F.objectNode()));

    addValid(
        "allow_issued_at_at_skew_limit",
        "issued_at exactly 5 minutes after verify_at (an issuer clock running ahead): still"
            + " accepted.",
        scope(
            "allow_issued_at_at_skew_limit",
            "2026-11-22T12:05:00.000Z",
            "allow",
            "authorization_granted_scope_active",
            D,
            "email.read",
            "mailbox:support",
            F.objectNode()));

    // Format-level cases this server never emits, which verifiers must accept.
    ObjectNode matched =
        scope(
            "format_policy_eval_matched_condition",
            "2026-11-22T11:20:00.000Z",
            "deny",
            "scope_not_authorized",
            D,
            "email.send",
            "mailbox:support",
            context(client("initiated_by", "agent"), null));
    ObjectNode condition = F.objectNode();
    condition.put("field", "context.initiated_by");
    condition.put("op", "in");
    condition.putArray("value").add("user").add("scheduler");
    ObjectNode policyEval = F.objectNode();
    policyEval.set("matched_condition", condition);
    policyEval.put("field_value", "agent");
    matched.set("policy_eval", policyEval);
    addValid(
        "format_policy_eval_matched_condition",
        "format case, never emitted by this server: the optional policy_eval member with a"
            + " matched condition whose value is an array.",
        matched,
        key,
        "format");

    ObjectNode noMatch =
        scope(
            "format_policy_eval_no_match",
            "2026-11-22T11:21:00.000Z",
            "allow",
            "authorization_granted_scope_active",
            D,
            "email.read",
            "mailbox:support",
            F.objectNode());
    ObjectNode emptyEval = F.objectNode();
    emptyEval.putNull("matched_condition");
    emptyEval.putNull("field_value");
    noMatch.set("policy_eval", emptyEval);
    addValid(
        "format_policy_eval_no_match",
        "format case, never emitted by this server: policy_eval with matched_condition and"
            + " field_value null.",
        noMatch,
        key,
        "format");

    addValid(
        "format_issued_at_with_offset",
        "format case, never emitted by this server (it writes UTC with milliseconds): issued_at"
            + " with a +01:00 offset and no fraction (11:30:00Z). The text is signed as is.",
        scope(
            "format_issued_at_with_offset",
            "2026-11-22T12:30:00+01:00",
            "allow",
            "authorization_granted_scope_active",
            D,
            "email.read",
            "mailbox:support",
            F.objectNode()),
        key,
        "format");
  }

  private static ObjectNode createContextA() {
    ObjectNode c = F.objectNode();
    ObjectNode metadata = c.putObject("metadata");
    metadata.put("ticket", "OPS-1142");
    metadata.putObject("app").put("name", "travel-desk").put("build", 1042);
    metadata.putArray("tags").add("pilot").add("eu-west");
    ArrayNode scopes = c.putArray("scopes");
    scopes.addObject().put("name", "calendar.read");
    ObjectNode email = scopes.addObject().put("name", "email.send");
    email.putObject("constraints").put("max_per_day", 3).put("resource_pattern", "mailbox:team-*");
    ObjectNode payments = scopes.addObject().put("name", "payments.send");
    payments.putObject("constraints").putArray("allowed_initiators").add("user");
    ObjectNode files = scopes.addObject().put("name", "files.delete");
    files.putObject("constraints").put("resource_pattern", "drive:/shared/*");
    scopes.addObject().put("name", "hr.records.export");
    c.put("expires_at", "2026-12-22T08:00:00.000Z");
    c.putArray("requires_confirm_for").add("payments.send");
    c.putArray("requires_escalation_for").add("files.delete").add("hr.records.export");
    c.putObject("escalation_targets").put("files.delete", "security");
    c.putNull("budget_limit_micros");
    c.putNull("bundle_id");
    return c;
  }

  private static ObjectNode createContextB() {
    ObjectNode c = F.objectNode();
    ObjectNode metadata = c.putObject("metadata");
    metadata.put("cost_center", "CC-4410");
    metadata.put("approved_via_policy", true);
    ArrayNode scopes = c.putArray("scopes");
    scopes.addObject().put("name", "flights.search");
    scopes.addObject().put("name", "flights.book").putObject("constraints").put("max_per_day", 5);
    c.put("expires_at", "2026-12-31T23:59:59.999Z");
    c.putArray("requires_confirm_for");
    c.putArray("requires_escalation_for");
    c.putObject("escalation_targets");
    c.put("budget_limit_micros", 5_000_000);
    c.put("bundle_id", "bundle_flights_eu");
    return c;
  }

  private static ObjectNode budgetContext(long spent, long estimate, boolean allowed) {
    ObjectNode c = context(client("initiated_by", "user", "fare_class", "economy"), "sess_b00k1ng");
    ObjectNode b = c.putObject("budget");
    b.put("limit_micros", 5_000_000);
    b.put("spent_micros", spent);
    b.put("estimated_cost_micros", estimate);
    b.put("spent_after_micros", allowed ? spent + estimate : spent);
    return c;
  }

  private static ObjectNode unicodeClientContext() {
    ObjectNode cc = F.objectNode();
    cc.put("initiated_by", "user");
    cc.put("title", "R\u00e9union d\u2019\u00e9quipe \u2014 Z\u00fcrich \ud83c\udde8\ud83c\udded");
    cc.put("cjk", "\u6771\u4eac\u3067\u306e\u4f1a\u8b70");
    cc.put("controls", "tab\there newline\ncr\rnul\u0000bell\u0007esc\u001bunit\u001f");
    cc.put(
        "not_escaped",
        "quote\" backslash\\ slash/ del\u007f nbsp\u00a0 line-sep\u2028 para-sep\u2029"
            + " bom\ufeff");
    cc.put("\ud834\udd1eclef", "a key outside the BMP (U+1D11E)");
    cc.put("\ufb01", "U+FB01: after U+1D11E by UTF-16 code units, before it by code point");
    cc.put("\u00e9", "after every ASCII key");
    cc.put("Z", "upper case sorts before lower case");
    cc.put("", "the empty key sorts first");
    ObjectNode nested = cc.putObject("nested");
    nested.put("b", 1);
    nested.put("a", 2);
    nested.put("B", 3);
    nested
        .putArray("numbers")
        .add(0)
        .add(-7)
        .add(9_007_199_254_740_991L)
        .add(-9_007_199_254_740_991L);
    nested.putArray("literals").add(true).add(false).addNull();
    return cc;
  }

  // ---------------------------------------------------------------------------------------------
  // Chain-only receipts: each verifies on its own; only the chain rules catch them.

  private void chainOnlyVectors() {
    addChainOnly(
        "chain_second_create",
        "a second authorization.create receipt for authorization A (chain rule: exactly one).",
        event(
            "chain_second_create",
            "2026-11-22T08:00:05.000Z",
            "authorization.create",
            "authorization_granted",
            "authorization_created",
            A,
            null,
            createContextA()));
    ObjectNode again = F.objectNode();
    again.put("revoked_by", "api_key");
    addChainOnly(
        "chain_second_revoke",
        "a second authorization.revoke receipt for authorization A (chain rule: at most one).",
        event(
            "chain_second_revoke",
            "2026-11-22T09:30:00.000Z",
            "authorization.revoke",
            "authorization_revoked",
            "authorization_revoked",
            A,
            null,
            again));
    addChainOnly(
        "chain_allow_after_revoke",
        "an allow for authorization A issued after its revocation (chain rule: only deny may"
            + " follow a revocation).",
        scope(
            "chain_allow_after_revoke",
            "2026-11-22T09:10:00.000Z",
            "allow",
            "authorization_granted_scope_active",
            A,
            "calendar.read",
            "calendar:team-offsite",
            context(null, SESSION)));
  }

  // ---------------------------------------------------------------------------------------------
  // Invalid receipts, each with the step that must reject it.

  private void invalidVectors() {
    String allowText = json(signed.get("allow_scope_active"));

    // PARSE
    addInvalidText(
        "duplicate_member_name",
        PARSE,
        "the member 'decision' appears twice (\"deny\", then \"allow\"); a parser keeping the last"
            + " one would see a validly signed receipt.",
        "{\"decision\":\"deny\"," + allowText.substring(1));
    addInvalidText(
        "trailing_content",
        PARSE,
        "a second JSON value follows the receipt object.",
        allowText + "\n{}");
    addInvalid(
        "receipt_not_an_object",
        PARSE,
        "the receipt is wrapped in an array.",
        F.arrayNode().add(signed.get("allow_scope_active").deepCopy()));

    // VERSION
    ObjectNode r = unsignedCopy("allow_scope_active");
    r.put("version", "2.0");
    addInvalid("version_2_0", VERSION, "version is \"2.0\" (re-signed).", sign(r, key));
    addInvalidText(
        "version_as_number",
        VERSION,
        "version is the number 1.0 instead of the string \"1.0\".",
        allowText.replace("\"version\":\"1.0\"", "\"version\":1.0"));
    r = unsignedCopy("allow_scope_active");
    r.remove("version");
    addInvalid("version_missing", VERSION, "no version member (re-signed).", sign(r, key));

    // SCHEMA: members and types
    r = unsignedCopy("allow_scope_active");
    r.put("trace_id", "tr_01");
    addInvalid(
        "unknown_top_level_member",
        SCHEMA,
        "an extra top-level member 'trace_id' (re-signed).",
        sign(r, key));
    r = unsignedCopy("allow_scope_active");
    r.remove("context");
    addInvalid("missing_context", SCHEMA, "no context member (re-signed).", sign(r, key));
    r = unsignedCopy("authorization_revoke");
    r.remove("resource");
    addInvalid(
        "missing_null_resource",
        SCHEMA,
        "an event receipt without its resource member: null members must be present (re-signed).",
        sign(r, key));
    r = unsignedCopy("deny_authorization_not_found");
    r.remove("user_id");
    r.remove("agent_id");
    addInvalid(
        "missing_null_user_and_agent",
        SCHEMA,
        "an authorization_not_found receipt with user_id and agent_id left out instead of null"
            + " (re-signed).",
        sign(r, key));
    r = unsignedCopy("allow_scope_active");
    r.putNull("scope");
    addInvalid(
        "scope_null",
        SCHEMA,
        "scope is null: on a scope receipt it is a string (re-signed).",
        sign(r, key));
    r = unsignedCopy("authorization_revoke");
    r.putNull("event");
    addInvalid(
        "event_null",
        SCHEMA,
        "event is null: on an event receipt it is a string (re-signed).",
        sign(r, key));
    r = unsignedCopy("allow_scope_active");
    r.put("event", "authorization.create");
    addInvalid(
        "both_scope_and_event",
        SCHEMA,
        "both scope and event are present (re-signed).",
        sign(r, key));
    r = unsignedCopy("allow_scope_active");
    r.remove("scope");
    addInvalid(
        "neither_scope_nor_event",
        SCHEMA,
        "neither scope nor event is present (re-signed).",
        sign(r, key));
    r = unsignedCopy("authorization_revoke");
    r.put("event", "authorization.update");
    addInvalid(
        "unknown_event",
        SCHEMA,
        "event 'authorization.update' does not exist (re-signed).",
        sign(r, key));
    r = unsignedCopy("authorization_revoke");
    r.putNull("authorization_id");
    addInvalid(
        "event_receipt_null_authorization_id",
        SCHEMA,
        "an event receipt with authorization_id null (re-signed).",
        sign(r, key));
    r = unsignedCopy("authorization_create_inline");
    r.put("resource", "calendar:team-offsite");
    addInvalid(
        "create_receipt_with_resource",
        SCHEMA,
        "an authorization.create receipt with a non-null resource (re-signed).",
        sign(r, key));
    r = unsignedCopy("authorization_revoke");
    r.put("resource", "calendar:team-offsite");
    addInvalid(
        "revoke_receipt_with_resource",
        SCHEMA,
        "an authorization.revoke receipt with a non-null resource (re-signed).",
        sign(r, key));
    r = unsignedCopy("allow_scope_active");
    r.put("user_id", 5_162_001);
    addInvalid("user_id_not_a_string", SCHEMA, "user_id is a number (re-signed).", sign(r, key));
    r = unsignedCopy("allow_scope_active");
    r.put("receipt_id", 1);
    addInvalid(
        "receipt_id_not_a_string", SCHEMA, "receipt_id is a number (re-signed).", sign(r, key));
    r = unsignedCopy("allow_scope_active");
    r.putArray("context").add("initiated_by=user");
    addInvalid("context_not_an_object", SCHEMA, "context is an array (re-signed).", sign(r, key));
    r = unsignedCopy("allow_scope_active");
    r.put("issued_at", "2026-11-22T08:01:12.480");
    addInvalid(
        "issued_at_without_offset",
        SCHEMA,
        "issued_at has no offset (neither Z nor +hh:mm) (re-signed).",
        sign(r, key));
    r = unsignedCopy("allow_scope_active");
    r.put("issued_at", "2026-11-22 08:01:12.480Z");
    addInvalid(
        "issued_at_space_separator",
        SCHEMA,
        "issued_at separates date and time with a space (re-signed).",
        sign(r, key));
    r = unsignedCopy("allow_scope_active");
    r.put("issued_at", "2026-11-31T08:01:12.480Z");
    addInvalid(
        "issued_at_impossible_date",
        SCHEMA,
        "issued_at is November 31st (re-signed).",
        sign(r, key));

    // SCHEMA: signature shape and encoding
    ObjectNode s = signedCopy("allow_scope_active");
    s.put("signature", s.get("signature").get("value").textValue());
    addInvalid("signature_not_an_object", SCHEMA, "signature is the bare value string.", s);
    s = signedCopy("allow_scope_active");
    ((ObjectNode) s.get("signature")).put("created", "2026-11-22T08:01:12.480Z");
    addInvalid("signature_extra_member", SCHEMA, "signature has a fourth member 'created'.", s);
    s = signedCopy("allow_scope_active");
    ((ObjectNode) s.get("signature")).remove("key_id");
    addInvalid("signature_missing_key_id", SCHEMA, "signature has no key_id.", s);
    String value = signatureValue("allow_scope_active");
    addInvalid(
        "signature_value_padded",
        SCHEMA,
        "signature.value is the right signature with base64 padding '==' appended.",
        withValue("allow_scope_active", value + "=="));
    String standardName = firstWithUrlSafeCharacter();
    addInvalid(
        "signature_value_standard_base64",
        SCHEMA,
        "signature.value is the right signature in the standard base64 alphabet ('+' and '/'"
            + " instead of '-' and '_').",
        withValue(standardName, signatureValue(standardName).replace('-', '+').replace('_', '/')));
    byte[] sig = Base64.getUrlDecoder().decode(value);
    addInvalid(
        "signature_value_63_bytes",
        SCHEMA,
        "signature.value decodes to 63 bytes (the last byte dropped).",
        withValue("allow_scope_active", B64URL.encodeToString(Arrays.copyOf(sig, 63))));
    addInvalid(
        "signature_value_65_bytes",
        SCHEMA,
        "signature.value decodes to 65 bytes (a zero byte appended).",
        withValue("allow_scope_active", B64URL.encodeToString(Arrays.copyOf(sig, 65))));
    addInvalid(
        "signature_value_nonzero_trailing_bits",
        SCHEMA,
        "signature.value ends with a character whose unused low bits are not zero: a lenient"
            + " decoder yields the right 64 bytes, but only one spelling of a signature is"
            + " accepted.",
        withValue("allow_scope_active", nonCanonicalSpelling(value)));

    // SCHEMA: values without a canonical form
    s = signedCopy("confirm_requires_user_confirmation");
    ((ObjectNode) s.get("context").get("client_context")).put("amount", 1299.5);
    addInvalid(
        "float_in_context",
        SCHEMA,
        "client_context holds the number 1299.5; canonical numbers are integers only (the"
            + " signature is the original one).",
        s);
    String budgetText = json(signed.get("allow_budget_evaluated"));
    addInvalidText(
        "integral_float_in_context",
        SCHEMA,
        "budget.limit_micros is written 5000000.0: a fraction part, even zero, has no canonical"
            + " form.",
        replaceOnce(budgetText, "\"limit_micros\":5000000", "\"limit_micros\":5000000.0"));
    addInvalidText(
        "exponent_in_context",
        SCHEMA,
        "budget.limit_micros is written 5e6: exponents have no canonical form.",
        replaceOnce(budgetText, "\"limit_micros\":5000000", "\"limit_micros\":5e6"));
    s = signedCopy("allow_budget_evaluated");
    ((ObjectNode) s.get("context").get("budget")).put("limit_micros", 9_007_199_254_740_992L);
    addInvalid(
        "integer_2_pow_53_in_context",
        SCHEMA,
        "budget.limit_micros is 2^53 = 9007199254740992, one past the safe range.",
        s);
    s = signedCopy("allow_budget_evaluated");
    ((ObjectNode) s.get("context").get("budget")).put("spent_micros", -9_007_199_254_740_992L);
    addInvalid(
        "integer_minus_2_pow_53_in_context",
        SCHEMA,
        "budget.spent_micros is -2^53, one past the safe range.",
        s);
    addInvalidText(
        "lone_surrogate_in_context",
        SCHEMA,
        "client_context.locale is the escape \\ud800, a lone surrogate that is no Unicode"
            + " text (some JSON parsers already reject it while parsing).",
        replaceOnce(allowText, "\"locale\":\"en-GB\"", "\"locale\":\"\\ud800\""));

    // SCHEMA: policy_eval
    ObjectNode pe = F.objectNode();
    pe.putNull("matched_condition");
    pe.putNull("field_value");
    r = unsignedCopy("authorization_revoke");
    r.set("policy_eval", pe.deepCopy());
    addInvalid(
        "policy_eval_on_event_receipt",
        SCHEMA,
        "policy_eval on an event receipt (re-signed).",
        sign(r, key));
    r = unsignedCopy("format_policy_eval_no_match");
    ((ObjectNode) r.get("policy_eval")).put("policy_version", POLICY_VERSION);
    addInvalid(
        "policy_eval_extra_member",
        SCHEMA,
        "policy_eval has a third member (re-signed).",
        sign(r, key));
    s = signedCopy("format_policy_eval_no_match");
    ((ObjectNode) s.get("policy_eval")).put("field_value", 0.25);
    addInvalid(
        "policy_eval_float_field_value",
        SCHEMA,
        "policy_eval.field_value is 0.25 (the signature is the original one).",
        s);

    // PAIRING
    r = unsignedCopy("allow_scope_active");
    r.put("decision", "authorization_granted");
    addInvalid(
        "scope_receipt_with_event_decision",
        PAIRING,
        "a scope receipt with decision authorization_granted (re-signed).",
        sign(r, key));
    r = unsignedCopy("allow_scope_active");
    r.put("decision", "maybe");
    addInvalid(
        "scope_receipt_unknown_decision",
        PAIRING,
        "a scope receipt with decision 'maybe' (re-signed).",
        sign(r, key));
    r = unsignedCopy("authorization_create_inline");
    r.put("decision", "authorization_revoked");
    addInvalid(
        "create_with_revoked_decision",
        PAIRING,
        "authorization.create with decision authorization_revoked (re-signed).",
        sign(r, key));
    r = unsignedCopy("authorization_revoke");
    r.put("decision", "authorization_granted");
    addInvalid(
        "revoke_with_granted_decision",
        PAIRING,
        "authorization.revoke with decision authorization_granted (re-signed).",
        sign(r, key));
    r = unsignedCopy("escalation_resolve_approved");
    r.put("decision", "allow");
    addInvalid(
        "resolve_with_allow_decision",
        PAIRING,
        "escalation.resolve with decision allow (re-signed).",
        sign(r, key));

    // ALGORITHM
    s = signedCopy("allow_scope_active");
    ((ObjectNode) s.get("signature")).put("alg", "EdDSA");
    addInvalid(
        "alg_eddsa",
        ALGORITHM,
        "signature.alg is 'EdDSA' (the signature value itself is right).",
        s);
    s = signedCopy("allow_scope_active");
    ((ObjectNode) s.get("signature")).put("alg", "ed25519");
    addInvalid(
        "alg_lowercase",
        ALGORITHM,
        "signature.alg is 'ed25519': the comparison is case-sensitive.",
        s);

    // TIMESTAMP
    r = unsignedCopy("allow_issued_at_at_skew_limit");
    r.put("issued_at", "2026-11-22T12:05:00.001Z");
    addInvalid(
        "issued_at_beyond_skew",
        TIMESTAMP,
        "issued_at is 5 minutes and 1 millisecond after verify_at (re-signed).",
        sign(r, key));
    r = unsignedCopy("allow_issued_at_at_skew_limit");
    r.put("issued_at", "2027-01-01T00:00:00.000Z");
    addInvalid(
        "issued_at_far_future",
        TIMESTAMP,
        "issued_at is weeks after verify_at (re-signed).",
        sign(r, key));

    // WORKSPACE
    r = unsignedCopy("allow_scope_active");
    r.put("workspace_id", "ws_other");
    addInvalid(
        "wrong_workspace",
        WORKSPACE,
        "workspace_id is ws_other, validly signed with a key the ws_vectors document lists: the"
            + " keys document binds the workspace.",
        sign(r, key));
    r = unsignedCopy("allow_scope_active");
    r.put("workspace_id", "WS_VECTORS");
    addInvalid(
        "workspace_id_differs_in_case",
        WORKSPACE,
        "workspace_id is WS_VECTORS: the comparison is exact (re-signed).",
        sign(r, key));

    // KEY_NOT_FOUND
    addInvalid(
        "unknown_key_id",
        KEY_NOT_FOUND,
        "signature.key_id ws_vectors/test-key-9 is not in the keys document.",
        sign(
            unsignedCopy("allow_scope_active"),
            ReceiptSigner.fromSeed(WORKSPACE_ID + "/test-key-9", sha256(KEY_SEED_TEXT))));
    addInvalid(
        "key_id_of_other_workspace",
        KEY_NOT_FOUND,
        "signature.key_id ws_other/test-key-1 is not in the keys document.",
        sign(
            unsignedCopy("allow_scope_active"),
            ReceiptSigner.fromSeed("ws_other/test-key-1", sha256(KEY_SEED_TEXT))));

    // KEY_NOT_ACTIVE
    addInvalid(
        "retired_key_at_active_until",
        KEY_NOT_ACTIVE,
        "signed by test-key-0 with issued_at equal to its active_until (the end is exclusive).",
        sign(unsignedCopy("allow_current_key_first_millisecond"), retiredKey));
    addInvalid(
        "retired_key_after_window",
        KEY_NOT_ACTIVE,
        "signed by test-key-0 three weeks after it was retired.",
        sign(unsignedCopy("allow_scope_active"), retiredKey));
    addInvalid(
        "current_key_before_active_from",
        KEY_NOT_ACTIVE,
        "signed by test-key-1 one millisecond before its active_from.",
        sign(unsignedCopy("allow_retired_key_last_millisecond"), key));

    // SIGNATURE: the payload changed after signing
    s = signedCopy("allow_scope_active");
    s.put("decision", "deny");
    addInvalid(
        "tampered_decision",
        SIGNATURE,
        "decision changed from allow to deny after signing (reason left alone).",
        s);
    s = signedCopy("deny_budget_exceeded");
    ((ObjectNode) s.get("context").get("budget")).put("spent_micros", 2_000_000);
    addInvalid(
        "tampered_budget_spent",
        SIGNATURE,
        "context.budget.spent_micros changed after signing.",
        s);
    s = signedCopy("deny_authorization_not_found");
    s.put("user_id", A.userId());
    addInvalid(
        "tampered_user_id_null_to_string",
        SIGNATURE,
        "user_id null replaced by a user's id after signing.",
        s);
    s = signedCopy("allow_unicode_and_control_characters");
    ObjectNode cc = (ObjectNode) s.get("context").get("client_context");
    cc.put("title", cc.get("title").textValue().replace("R\u00e9union", "Re\u0301union"));
    addInvalid(
        "tampered_unicode_normalization",
        SIGNATURE,
        "client_context.title rewritten from NFC to NFD (e + combining acute): strings are"
            + " signed as they are, never normalized.",
        s);
    s = signedCopy("allow_scope_active");
    ((ObjectNode) s.get("context")).remove("session_id");
    addInvalid(
        "tampered_context_member_removed",
        SIGNATURE,
        "context.session_id removed after signing.",
        s);
    s = signedCopy("escalation_resolve_rejected");
    ((ObjectNode) s.get("context")).put("note", "approved after all");
    addInvalid("tampered_context_member_added", SIGNATURE, "context.note added after signing.", s);
    s = signedCopy("allow_scope_active");
    s.put("issued_at", "2026-11-22T08:01:12.480+00:00");
    addInvalid(
        "tampered_issued_at_same_instant",
        SIGNATURE,
        "issued_at rewritten as the same instant with +00:00: the text is signed, not the"
            + " instant.",
        s);

    // SIGNATURE: the signature is not the one over this payload
    sig[17] ^= 0x01;
    addInvalid(
        "signature_bit_flipped",
        SIGNATURE,
        "one bit of the signature flipped (byte 17, bit 0), re-encoded as unpadded base64url.",
        withValue("allow_scope_active", B64URL.encodeToString(sig)));
    addInvalid(
        "signature_from_unpublished_key",
        SIGNATURE,
        "signed under key_id ws_vectors/test-key-1 by a key that is not the published one"
            + " (seed: SHA-256 of \""
            + UNPUBLISHED_KEY_SEED_TEXT
            + "\").",
        sign(unsignedCopy("allow_scope_active"), unpublishedKey));
    addInvalid(
        "signature_of_another_receipt",
        SIGNATURE,
        "carries the signature of confirm_requires_user_confirmation.",
        withValue("allow_scope_active", signatureValue("confirm_requires_user_confirmation")));

    // SIGNATURE: signed over a wrongly canonicalized payload
    signedOver(
        "signed_over_short_escapes",
        "allow_unicode_and_control_characters",
        Mistake.SHORT_ESCAPES,
        "signed over a payload writing tab, newline and carriage return as \\t \\n \\r.");
    signedOver(
        "signed_over_uppercase_hex_escapes",
        "allow_unicode_and_control_characters",
        Mistake.UPPERCASE_HEX,
        "signed over a payload writing control characters as \\u001F (upper-case hex).");
    signedOver(
        "signed_over_escaped_non_ascii",
        "allow_unicode_and_control_characters",
        Mistake.ESCAPE_NON_ASCII,
        "signed over a payload escaping every non-ASCII character as \\uXXXX.");
    signedOver(
        "signed_over_escaped_del",
        "allow_unicode_and_control_characters",
        Mistake.ESCAPE_DEL,
        "signed over a payload escaping U+007F as \\u007f.");
    signedOver(
        "signed_over_code_point_key_order",
        "allow_unicode_and_control_characters",
        Mistake.CODE_POINT_KEY_ORDER,
        "signed over a payload sorting keys by code point (U+FB01 before U+1D11E) instead of"
            + " UTF-16 code units.");
    signedOver(
        "signed_over_escaped_solidus",
        "escalation_resolve_approved",
        Mistake.ESCAPE_SOLIDUS,
        "signed over a payload escaping '/' as \\/.");
    signedOver(
        "signed_over_payload_without_null_members",
        "authorization_create_inline",
        Mistake.OMIT_NULL_MEMBERS,
        "signed over a payload leaving out members whose value is null.");
    signedOver(
        "signed_over_pretty_printed_payload",
        "allow_scope_active",
        Mistake.WHITESPACE,
        "signed over the payload pretty-printed with newlines and indentation.");
  }

  private void signedOver(String name, String base, Mistake mistake, String description) {
    ObjectNode r = unsigned.get(base);
    String wrong = ReferenceCanonicalForm.signingPayload(r, mistake);
    if (wrong.equals(ReferenceCanonicalForm.signingPayload(r))) {
      throw new IllegalStateException(name + ": " + mistake + " changes nothing in " + base);
    }
    addInvalid(
        name,
        SIGNATURE,
        description,
        withSignature(r, "Ed25519", KEY_ID, key.signatureValue(wrong.getBytes(UTF_8))));
  }

  // ---------------------------------------------------------------------------------------------
  // Chains of one authorization, with the problems a chain verifier must report.

  private void chainVectors() {
    chain(
        "authorization_a_lifecycle",
        "authorization A from creation to revocation: every receipt in issuance order.",
        new String[] {
          "authorization_create_inline",
          "allow_scope_active",
          "confirm_requires_user_confirmation",
          "allow_via_confirmation",
          "escalate_with_escalation_target",
          "escalation_resolve_approved",
          "allow_via_escalation",
          "escalate_without_escalation_target",
          "escalation_resolve_rejected",
          "deny_escalation_rejected",
          "deny_scope_not_authorized_scope_missing",
          "deny_scope_not_authorized_resource_pattern",
          "deny_scope_not_authorized_initiator",
          "deny_resource_tombstoned",
          "deny_rate_limit_exceeded",
          "allow_unicode_and_control_characters",
          "authorization_revoke",
          "deny_authorization_revoked"
        });
    chain(
        "authorization_b_budget",
        "authorization B: creation, a budgeted allow, a budget_exceeded deny.",
        new String[] {
          "authorization_create_bundle_budgeted", "allow_budget_evaluated", "deny_budget_exceeded"
        });
    chain(
        "missing_create",
        "receipts of A without its authorization.create receipt.",
        new String[] {"allow_scope_active", "authorization_revoke", "deny_authorization_revoked"},
        "MISSING_CREATE",
        -1);
    chain(
        "create_not_first",
        "A's create receipt listed after a scope receipt issued later than it.",
        new String[] {"allow_scope_active", "authorization_create_inline", "authorization_revoke"},
        "CREATE_NOT_FIRST",
        1,
        "OUT_OF_ORDER",
        1);
    chain(
        "out_of_order",
        "two scope receipts of A in the wrong order.",
        new String[] {
          "authorization_create_inline", "confirm_requires_user_confirmation", "allow_scope_active"
        },
        "OUT_OF_ORDER",
        2);
    chain(
        "duplicate_create",
        "two authorization.create receipts for A.",
        new String[] {"authorization_create_inline", "chain_second_create", "allow_scope_active"},
        "DUPLICATE_CREATE",
        1);
    chain(
        "duplicate_revoke",
        "two authorization.revoke receipts for A.",
        new String[] {
          "authorization_create_inline",
          "authorization_revoke",
          "deny_authorization_revoked",
          "chain_second_revoke"
        },
        "DUPLICATE_REVOKE",
        3);
    chain(
        "allow_after_revoke",
        "an allow issued after A's revocation.",
        new String[] {
          "authorization_create_inline",
          "authorization_revoke",
          "deny_authorization_revoked",
          "chain_allow_after_revoke"
        },
        "USE_AFTER_REVOKE",
        3);
    chain(
        "mixed_authorization",
        "a receipt of authorization B in A's chain.",
        new String[] {
          "authorization_create_inline", "allow_scope_active", "allow_budget_evaluated"
        },
        "MIXED_AUTHORIZATION",
        2);
    chain(
        "mixed_workspace",
        "a receipt of another workspace in A's chain.",
        new String[] {"authorization_create_inline", "wrong_workspace"},
        "MIXED_WORKSPACE",
        1);
    chain(
        "invalid_member",
        "a tampered receipt in A's chain: reported, and its claims are not used.",
        new String[] {"authorization_create_inline", "tampered_decision", "authorization_revoke"},
        "INVALID_RECEIPT",
        1);
  }

  private void chain(String name, String description, String[] receipts, Object... problems) {
    ObjectNode c = chains.addObject();
    c.put("name", name);
    c.put("description", description);
    ArrayNode list = c.putArray("receipts");
    for (String r : receipts) {
      list.add(r);
    }
    ArrayNode expected = c.putArray("expected_problems");
    for (int i = 0; i < problems.length; i += 2) {
      ObjectNode p = expected.addObject();
      p.put("kind", (String) problems[i]);
      p.put("index", (Integer) problems[i + 1]);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Building blocks.

  private static ObjectNode scope(
      String name,
      String issuedAt,
      String decision,
      String reason,
      Party party,
      String scope,
      String resource,
      ObjectNode context) {
    ObjectNode r = head(name, issuedAt, decision, reason, party);
    r.put("scope", scope);
    return tail(r, resource, context, party);
  }

  private static ObjectNode event(
      String name,
      String issuedAt,
      String event,
      String decision,
      String reason,
      Party party,
      String resource,
      ObjectNode context) {
    ObjectNode r = head(name, issuedAt, decision, reason, party);
    r.put("event", event);
    return tail(r, resource, context, party);
  }

  /** The members in the order the reference server writes them (the order is not signed). */
  private static ObjectNode head(
      String name, String issuedAt, String decision, String reason, Party party) {
    ObjectNode r = F.objectNode();
    r.put("version", "1.0");
    r.put("receipt_id", ulid(issuedAt, "receipt " + name));
    r.put("workspace_id", WORKSPACE_ID);
    r.put("issued_at", issuedAt);
    r.put("decision", decision);
    r.put("reason", reason);
    r.put("user_id", party.userId());
    r.put("agent_id", party.agentId());
    return r;
  }

  private static ObjectNode tail(ObjectNode r, String resource, ObjectNode context, Party party) {
    r.put("resource", resource);
    r.set("context", context);
    r.put("authorization_id", party.authorizationId());
    r.put("policy_version", POLICY_VERSION);
    return r;
  }

  /** A check receipt's context: client_context and session_id when given. */
  private static ObjectNode context(ObjectNode clientContext, String sessionId) {
    ObjectNode c = F.objectNode();
    if (clientContext != null) {
      c.set("client_context", clientContext);
    }
    if (sessionId != null) {
      c.put("session_id", sessionId);
    }
    return c;
  }

  private static ObjectNode client(String... pairs) {
    ObjectNode c = F.objectNode();
    for (int i = 0; i < pairs.length; i += 2) {
      c.put(pairs[i], pairs[i + 1]);
    }
    return c;
  }

  private void addValid(String name, String description, ObjectNode receipt) {
    addValid(name, description, receipt, key);
  }

  private void addValid(String name, String description, ObjectNode receipt, ReceiptSigner by) {
    addValid(name, description, receipt, by, "server");
  }

  private void addValid(
      String name, String description, ObjectNode receipt, ReceiptSigner by, String source) {
    valid.add(entry(name, description, receipt, by, source));
  }

  private void addChainOnly(String name, String description, ObjectNode receipt) {
    chainOnly.add(entry(name, description, receipt, key, "server"));
  }

  private ObjectNode entry(
      String name, String description, ObjectNode receipt, ReceiptSigner by, String source) {
    if (unsigned.put(name, receipt) != null) {
      throw new IllegalStateException("duplicate vector name " + name);
    }
    ObjectNode s = sign(receipt, by);
    signed.put(name, s);
    ObjectNode v = F.objectNode();
    v.put("name", name);
    v.put("source", source);
    v.put("description", description);
    v.put("canonical", ReferenceCanonicalForm.signingPayload(receipt));
    v.set("receipt", s);
    return v;
  }

  private void addInvalid(String name, VerificationStep step, String description, JsonNode r) {
    invalidEntry(name, step, description).set("receipt", r);
  }

  private void addInvalidText(String name, VerificationStep step, String description, String t) {
    invalidEntry(name, step, description).put("receipt_text", t);
  }

  private ObjectNode invalidEntry(String name, VerificationStep step, String description) {
    if (unsigned.containsKey(name)) {
      throw new IllegalStateException("duplicate vector name " + name);
    }
    for (JsonNode v : invalid) {
      if (v.get("name").textValue().equals(name)) {
        throw new IllegalStateException("duplicate vector name " + name);
      }
    }
    ObjectNode v = invalid.addObject();
    v.put("name", name);
    v.put("expected_step", step.name());
    v.put("description", description);
    return v;
  }

  private ObjectNode unsignedCopy(String name) {
    return unsigned.get(name).deepCopy();
  }

  private ObjectNode signedCopy(String name) {
    return signed.get(name).deepCopy();
  }

  private String signatureValue(String name) {
    return signed.get(name).get("signature").get("value").textValue();
  }

  private ObjectNode withValue(String name, String value) {
    ObjectNode s = signedCopy(name);
    ((ObjectNode) s.get("signature")).put("value", value);
    return s;
  }

  /** The first valid vector whose signature value contains '-' or '_'. */
  private String firstWithUrlSafeCharacter() {
    for (JsonNode v : valid) {
      String value = v.get("receipt").get("signature").get("value").textValue();
      if (value.indexOf('-') >= 0 || value.indexOf('_') >= 0) {
        return v.get("name").textValue();
      }
    }
    throw new IllegalStateException("no signature value contains '-' or '_'");
  }

  /**
   * The same 64 bytes spelled with non-zero unused bits: 86 characters carry 516 bits, the last 4
   * of which must be zero; setting the lowest one changes the text but not the decoded bytes.
   */
  private static String nonCanonicalSpelling(String value) {
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    int last = alphabet.indexOf(value.charAt(value.length() - 1));
    if (value.length() != 86 || (last & 0x0F) != 0) {
      throw new IllegalStateException("unexpected signature spelling " + value);
    }
    return value.substring(0, 85) + alphabet.charAt(last | 1);
  }

  private static ObjectNode sign(ObjectNode receipt, ReceiptSigner by) {
    String payload = ReferenceCanonicalForm.signingPayload(receipt);
    return withSignature(
        receipt, "Ed25519", by.keyId(), by.signatureValue(payload.getBytes(UTF_8)));
  }

  private static ObjectNode withSignature(
      ObjectNode receipt, String alg, String keyId, String value) {
    ObjectNode copy = receipt.deepCopy();
    copy.remove("signature");
    ObjectNode s = copy.putObject("signature");
    s.put("alg", alg);
    s.put("key_id", keyId);
    s.put("value", value);
    return copy;
  }

  private static String replaceOnce(String text, String from, String to) {
    int at = text.indexOf(from);
    if (at < 0 || text.indexOf(from, at + 1) >= 0) {
      throw new IllegalStateException("expected exactly one '" + from + "'");
    }
    return text.substring(0, at) + to + text.substring(at + from.length());
  }

  private static ReceiptSigner signer(String keyId, String seedText) {
    return ReceiptSigner.fromSeed(keyId, sha256(seedText));
  }

  static byte[] sha256(String text) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(text.getBytes(UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String authId(String createdAt, String salt) {
    return "auth_" + ulid(createdAt, "authorization " + salt);
  }

  /**
   * A ULID (26 Crockford base32 characters): 48 bits of milliseconds since the epoch, then 80 bits,
   * here taken from SHA-256 of {@code salt} instead of a random source.
   */
  static String ulid(String timestamp, String salt) {
    long ms = OffsetDateTime.parse(timestamp).toInstant().toEpochMilli();
    char[] out = new char[26];
    for (int i = 9; i >= 0; i--) {
      out[i] = CROCKFORD[(int) (ms & 31)];
      ms >>>= 5;
    }
    BigInteger random = new BigInteger(1, Arrays.copyOf(sha256(salt), 10));
    for (int i = 25; i >= 10; i--) {
      out[i] = CROCKFORD[random.intValue() & 31];
      random = random.shiftRight(5);
    }
    return new String(out);
  }

  private static String json(JsonNode node) {
    try {
      return MAPPER.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Pretty-prints with two-space indentation and LF line ends, whatever the platform. */
  private static String write(JsonNode root) {
    Separators separators =
        Separators.createDefaultInstance()
            .withObjectFieldValueSpacing(Separators.Spacing.AFTER)
            .withObjectEmptySeparator("")
            .withArrayEmptySeparator("");
    DefaultPrettyPrinter printer =
        new DefaultPrettyPrinter(separators)
            .withObjectIndenter(new DefaultIndenter("  ", "\n"))
            .withArrayIndenter(new DefaultIndenter("  ", "\n"));
    try {
      return MAPPER.writer(printer).writeValueAsString(root) + "\n";
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
