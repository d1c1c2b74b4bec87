package dev.agentauth.guard;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.model.AgentAuthJson;
import dev.agentauth.model.CheckResult;
import dev.agentauth.model.Decision;
import dev.agentauth.model.EscalationRef;
import dev.agentauth.model.Reason;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * The decision object of a refused tool call, the same for every adapter: {@code decision} and
 * {@code reason}; for {@code confirm} also {@code confirm_nonce}, {@code confirm_expires_at} and
 * {@code confirm_prompt_hint}; for {@code escalate} {@code escalation_id}, {@code escalation_to}
 * and {@code escalation_expires_at}; {@code receipt_id} when the service issued a receipt; {@code
 * local} for a local denial; {@code fallback} and {@code fallback_mode} when the client's fallback
 * policy decided; and always a one-sentence {@code message} for the model. The MCP guard returns it
 * as an error result, the Spring AI and LangChain4j adapters as the tool's text result.
 */
public final class GuardResults {
  private static final ObjectMapper MAPPER = AgentAuthJson.newObjectMapper();

  /** The reason of a call denied because the service refused the guard's own API key. */
  public static final Reason SERVICE_UNAVAILABLE = Reason.of("service_unavailable");

  /** The reason of a call whose user declined the confirmation in their client. */
  public static final Reason CONFIRMATION_DECLINED = Reason.of("confirmation_declined");

  private GuardResults() {}

  /**
   * Returns the decision object of a service (or SDK fallback) result, in a stable order, with a
   * {@code message} for the model.
   */
  public static Map<String, Object> body(String toolName, CheckResult r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("decision", r.decision().value());
    m.put("reason", r.reason().value());
    if (Decision.CONFIRM.equals(r.decision())) {
      putIfPresent(m, "confirm_nonce", r.confirmNonce());
      if (r.confirmExpiresAt() != null) {
        m.put("confirm_expires_at", AgentAuthJson.formatInstant(r.confirmExpiresAt()));
      }
      putIfPresent(m, "confirm_prompt_hint", r.confirmPromptHint());
    } else if (Decision.ESCALATE.equals(r.decision())) {
      EscalationRef e = r.escalation();
      putIfPresent(
          m, "escalation_id", firstNonNull(r.escalationId(), e, EscalationRef::escalationId));
      putIfPresent(
          m, "escalation_to", firstNonNull(r.escalationTo(), e, EscalationRef::escalationTo));
      Instant expires = firstNonNull(r.escalationExpiresAt(), e, EscalationRef::expiresAt);
      if (expires != null) {
        m.put("escalation_expires_at", AgentAuthJson.formatInstant(expires));
      }
    }
    if (r.receipt() != null) {
      m.put("receipt_id", r.receipt().receiptId());
    }
    if (Boolean.TRUE.equals(r.fallback())) {
      m.put("fallback", true);
      if (r.fallbackMode() != null) {
        m.put("fallback_mode", r.fallbackMode().value());
      }
    }
    m.put("message", ModelMessages.of(toolName, r));
    return Collections.unmodifiableMap(m);
  }

  /**
   * Returns the decision object of a local denial: no service call, no receipt. {@code argument}
   * names the argument a resource template could not read, else {@code null}.
   */
  public static Map<String, Object> localBody(String toolName, Reason reason, String argument) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("decision", Decision.DENY.value());
    m.put("reason", reason.value());
    m.put("local", true);
    m.put("message", ModelMessages.local(toolName, reason, argument));
    return Collections.unmodifiableMap(m);
  }

  /**
   * Returns the decision object of a call the guard could not check because the service refused its
   * API key (401 or 403): no decision, no receipt.
   */
  public static Map<String, Object> serviceUnavailableBody(String toolName) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("decision", Decision.DENY.value());
    m.put("reason", SERVICE_UNAVAILABLE.value());
    m.put("message", ModelMessages.serviceUnavailable(toolName));
    return Collections.unmodifiableMap(m);
  }

  /**
   * Returns the decision object of a confirmation the user declined in their client: the nonce and
   * the receipt of the {@code confirm} check.
   */
  public static Map<String, Object> declinedBody(String toolName, CheckResult confirm) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("decision", Decision.DENY.value());
    m.put("reason", CONFIRMATION_DECLINED.value());
    putIfPresent(m, "confirm_nonce", confirm.confirmNonce());
    if (confirm.receipt() != null) {
      m.put("receipt_id", confirm.receipt().receiptId());
    }
    m.put("message", ModelMessages.declined(toolName));
    return Collections.unmodifiableMap(m);
  }

  /** Returns {@code body} as compact JSON text. */
  public static String json(Map<String, Object> body) {
    try {
      return MAPPER.writeValueAsString(body);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e); // strings and booleans only: cannot happen
    }
  }

  /** The top-level member of an escalate result, else the one of its {@code escalation} object. */
  private static <T> T firstNonNull(T value, EscalationRef e, Function<EscalationRef, T> member) {
    return value != null || e == null ? value : member.apply(e);
  }

  private static void putIfPresent(Map<String, Object> m, String key, String value) {
    if (value != null) {
      m.put(key, value);
    }
  }
}
