package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import java.time.Instant;
import java.util.Map;

/**
 * A signed receipt (format version {@code 1.0}): in a {@code receipt} member with {@code
 * ?wait=true}, and under {@code receipt} in the {@code signed} body of {@code GET
 * /v1/receipts/{receipt_id}}. Members are written in the order below; {@code user_id}, {@code
 * agent_id}, {@code resource} and {@code authorization_id} are written as explicit {@code null}
 * when {@code null} (they are signed as {@code null}); {@code scope}, {@code event} and {@code
 * policy_eval} are omitted when {@code null} (they are absent, never {@code null}, on the wire).
 *
 * <p>This record carries a receipt; it does not vouch for it. It performs no validation (both or
 * neither of {@code scope}/{@code event}, wrong version, ...), so a verifier can read any receipt
 * and reject it at the right step. {@code issued_at} is re-written as UTC with milliseconds, which
 * is exactly the server's form.
 *
 * <p>Verify the receipt's JSON text as served, not this record serialized again: only the text as
 * served is guaranteed to verify. The record keeps only the members it knows, so a member a newer
 * service adds and signs would be missing from a re-serialization, and its signature would fail.
 * The client returns the text as served from {@code ReceiptService.awaitSignedJson} and {@code
 * chainJson}.
 *
 * @param version always {@code 1.0}
 * @param scope the scope name on scope (check) receipts; {@code null} on event receipts
 * @param event the event on event receipts; {@code null} on scope receipts
 * @param context issuer-defined object (deep-copied, order kept)
 * @param policyEval optional {@code policy_eval} object of the receipt format (this server never
 *     emits it); {@code null} when absent, a {@code NullNode} when present as {@code null}
 */
@JsonDeserialize(using = JsonDeserializer.None.class)
public record SignedReceipt(
    @JsonProperty("version") String version,
    @JsonProperty("receipt_id") String receiptId,
    @JsonProperty("workspace_id") String workspaceId,
    @JsonProperty("issued_at") Instant issuedAt,
    @JsonProperty("decision") Decision decision,
    @JsonProperty("reason") Reason reason,
    @JsonProperty("user_id") String userId,
    @JsonProperty("agent_id") String agentId,
    @JsonProperty("scope") @JsonInclude(JsonInclude.Include.NON_NULL) String scope,
    @JsonProperty("event") @JsonInclude(JsonInclude.Include.NON_NULL) ReceiptEvent event,
    @JsonProperty("resource") String resource,
    @JsonProperty("context") Map<String, Object> context,
    @JsonProperty("authorization_id") String authorizationId,
    @JsonProperty("policy_version") String policyVersion,
    @JsonProperty("policy_eval") @JsonInclude(JsonInclude.Include.NON_NULL) JsonNode policyEval,
    @JsonProperty("signature") ReceiptSignature signature)
    implements ReceiptRef {

  /** The receipt format version this SDK writes and understands. */
  public static final String VERSION = "1.0";

  /** Deep-copies {@code context} and {@code policy_eval}; {@code null} stays {@code null}. */
  public SignedReceipt {
    context = Copies.json(context);
    policyEval = policyEval == null ? null : policyEval.deepCopy();
  }

  /** Returns a copy with {@code signature} replaced, e.g. to attach it after signing. */
  public SignedReceipt withSignature(ReceiptSignature signature) {
    return new SignedReceipt(
        version,
        receiptId,
        workspaceId,
        issuedAt,
        decision,
        reason,
        userId,
        agentId,
        scope,
        event,
        resource,
        context,
        authorizationId,
        policyVersion,
        policyEval,
        signature);
  }
}
