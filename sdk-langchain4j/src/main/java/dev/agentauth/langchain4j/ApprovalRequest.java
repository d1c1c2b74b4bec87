package dev.agentauth.langchain4j;

import dev.agentauth.model.Decision;
import java.util.Map;
import java.util.Objects;

/**
 * A guarded call that waits for a person: a {@code confirm} (the user must approve it) or an {@code
 * escalate} (an approver must), as given to an {@link ApprovalListener}. The model receives the
 * same {@link #result()} as the tool's result; the tool did not run.
 *
 * @param toolName the called tool
 * @param userId the caller
 * @param decision {@code confirm} or {@code escalate}
 * @param result the decision object returned to the model: {@code confirm_nonce}, {@code
 *     confirm_expires_at}, {@code confirm_prompt_hint} for a confirm; {@code escalation_id}, {@code
 *     escalation_to}, {@code escalation_expires_at} for an escalation; {@code receipt_id}, {@code
 *     message}
 * @param call the call, with its arguments and invocation
 */
public record ApprovalRequest(
    String toolName,
    String userId,
    Decision decision,
    Map<String, Object> result,
    LangChain4jToolCall call) {

  /**
   * Requires every member.
   *
   * @throws NullPointerException if a member is null
   */
  public ApprovalRequest {
    Objects.requireNonNull(toolName, "toolName");
    Objects.requireNonNull(userId, "userId");
    Objects.requireNonNull(decision, "decision");
    Objects.requireNonNull(result, "result");
    Objects.requireNonNull(call, "call");
  }

  /** Returns the nonce to approve ({@code POST /v1/confirmations/{nonce}}), or {@code null}. */
  public String confirmNonce() {
    return result.get("confirm_nonce") instanceof String s ? s : null;
  }

  /** Returns the escalation an approver must decide, or {@code null}. */
  public String escalationId() {
    return result.get("escalation_id") instanceof String s ? s : null;
  }
}
