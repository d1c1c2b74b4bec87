package dev.agentauth.mcp;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.ApiException;
import dev.agentauth.client.AuthenticationException;
import dev.agentauth.client.ForbiddenException;
import dev.agentauth.model.CheckResult;
import dev.agentauth.model.ConfirmationVia;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.ClientCapabilities;
import io.modelcontextprotocol.spec.McpSchema.ElicitFormRequest;
import io.modelcontextprotocol.spec.McpSchema.ElicitResult;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * In-client confirmation (decisions §19): asks the user with a form-mode {@code elicitation/create}
 * and resolves the confirmation nonce from the answer. One sequence for the sync and async guards:
 *
 * <ol>
 *   <li>send the form (tool, the scope's prompt hint, the bound arguments; one boolean {@value
 *       #FIELD}) and wait up to the confirmation timeout;
 *   <li>{@code accept} with {@value #FIELD} {@code true}: approve the nonce ({@code via:
 *       mcp_elicitation}), then re-check; the re-check decides whether the tool runs;
 *   <li>{@code accept} with {@code false}, or {@code decline}: decline the nonce and return the
 *       {@code confirmation_declined} result;
 *   <li>{@code cancel}, a timeout, an elicitation error, or an approval the service refuses (a key
 *       without the {@code tool_server} role gets 403): the {@code confirm} result, nonce left as
 *       it was.
 * </ol>
 */
final class Confirmations {
  /** The boolean field of the form. */
  static final String FIELD = "approve";

  private static final Logger log = LoggerFactory.getLogger(AgentAuthToolGuard.class);
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final int MAX_VALUE_CHARS = 200;

  /** What the guard does next: run the tool ({@link #RUN}), or return {@link #result()}. */
  record Outcome(CallToolResult result) {
    static final Outcome RUN = new Outcome(null);

    boolean runs() {
      return result == null;
    }
  }

  private final AgentAuthClient client;
  private final Duration timeout;

  Confirmations(AgentAuthClient client, Duration timeout) {
    this.client = client;
    this.timeout = timeout;
  }

  /**
   * Returns whether the client can answer a form: it declared {@code elicitation} with form mode
   * ({@code elicitation: {}} means form only).
   */
  static boolean supported(ClientCapabilities caps) {
    if (caps == null || caps.elicitation() == null) {
      return false;
    }
    ClientCapabilities.Elicitation e = caps.elicitation();
    return e.form() != null || e.url() == null;
  }

  /**
   * Runs the sequence for one {@code confirm} result.
   *
   * @param recheck the re-check after an approval, mapped to an outcome
   * @param onDeclined called when the user declined: tells the listener, returns the declined
   *     result
   */
  Mono<Outcome> ask(
      Tool tool,
      ResourceBinding binding,
      ToolCall call,
      CheckResult confirm,
      Elicitor elicitor,
      Supplier<Mono<Outcome>> recheck,
      Supplier<Outcome> onDeclined) {
    Outcome asBefore =
        new Outcome(DecisionResults.error(tool, DecisionResults.body(tool.name(), confirm)));
    String nonce = confirm.confirmNonce();
    ElicitFormRequest form = form(tool, binding, call, confirm);
    return Mono.defer(() -> elicitor.elicit(form))
        .timeout(timeout)
        .map(Answer::of)
        .defaultIfEmpty(Answer.NONE)
        .onErrorResume(
            e -> {
              if (e instanceof TimeoutException) {
                log.info(
                    "agentauth: no answer to the confirmation of tool {} within {}; returning the"
                        + " confirm result",
                    tool.name(),
                    timeout);
              } else {
                log.warn(
                    "agentauth: asking the user to confirm tool {} failed ({}); returning the"
                        + " confirm result",
                    tool.name(),
                    e.toString());
              }
              return Mono.just(Answer.NONE);
            })
        .flatMap(
            answer ->
                switch (answer) {
                  case APPROVED ->
                      Mono.fromFuture(
                              () ->
                                  client
                                      .async()
                                      .confirmations()
                                      .approve(nonce, null, ConfirmationVia.MCP_ELICITATION, null))
                          .then(Mono.just(true))
                          .onErrorResume(e -> refused(tool, "approve", e).thenReturn(false))
                          .flatMap(approved -> approved ? recheck.get() : Mono.just(asBefore));
                  case DECLINED ->
                      Mono.fromFuture(
                              () ->
                                  client
                                      .async()
                                      .confirmations()
                                      .decline(nonce, ConfirmationVia.MCP_ELICITATION, null))
                          .then()
                          .onErrorResume(e -> refused(tool, "decline", e))
                          .then(Mono.fromSupplier(onDeclined));
                  case NONE -> Mono.just(asBefore);
                });
  }

  /** Logs one WARN line for a resolution the service refused; never a stack trace. */
  private static Mono<Void> refused(Tool tool, String what, Throwable e) {
    if (e instanceof ForbiddenException || e instanceof AuthenticationException) {
      ApiException a = (ApiException) e;
      log.warn(
          "agentauth refused to {} the confirmation of tool {} ({} {}): the guard's API key needs"
              + " role tool_server to record the user's answer from the client (request id {})",
          what,
          tool.name(),
          a.statusCode(),
          a.code(),
          a.requestId());
    } else {
      log.warn(
          "agentauth: could not {} the confirmation of tool {} ({})",
          what,
          tool.name(),
          e.toString());
    }
    return Mono.empty();
  }

  private enum Answer {
    APPROVED,
    DECLINED,
    NONE;

    static Answer of(ElicitResult r) {
      if (r == null || r.action() == null) {
        return NONE;
      }
      return switch (r.action()) {
        case ACCEPT ->
            r.content() != null && Boolean.TRUE.equals(r.content().get(FIELD))
                ? APPROVED
                : DECLINED;
        case DECLINE -> DECLINED;
        case CANCEL -> NONE;
      };
    }
  }

  /** The form: what is asked, naming the tool, the prompt hint and the arguments bound. */
  static ElicitFormRequest form(
      Tool tool, ResourceBinding binding, ToolCall call, CheckResult confirm) {
    StringBuilder m = new StringBuilder();
    m.append("Allow the assistant to run ").append(tool.name()).append('?');
    String hint = confirm.confirmPromptHint();
    if (hint != null && !hint.isBlank()) {
      m.append("\n").append(hint.strip());
    }
    Map<String, Object> args = call.arguments();
    Iterable<String> shown =
        binding.bindsAllArguments()
            ? new java.util.TreeSet<>(args.keySet())
            : binding.placeholders();
    StringBuilder lines = new StringBuilder();
    for (String name : shown) {
      lines.append("\n  ").append(name).append(": ").append(show(args.get(name)));
    }
    if (lines.length() > 0) {
      m.append("\nArguments:").append(lines);
    }
    if (binding.isUnbound()) {
      m.append("\nApproving allows every call of ")
          .append(tool.name())
          .append(" for a short while, whatever its arguments.");
    } else {
      m.append("\nApproving allows this call only.");
    }
    Map<String, Object> schema =
        Map.of(
            "type",
            "object",
            "properties",
            Map.of(
                FIELD,
                Map.of(
                    "type",
                    "boolean",
                    "title",
                    "Approve",
                    "description",
                    "Allow this call of " + tool.name())),
            "required",
            List.of(FIELD));
    return ElicitFormRequest.builder(m.toString(), schema).build();
  }

  private static String show(Object value) {
    String s;
    if (value instanceof String str) {
      s = str;
    } else {
      try {
        s = MAPPER.writeValueAsString(value);
      } catch (JsonProcessingException e) {
        s = String.valueOf(value);
      }
    }
    return s.length() > MAX_VALUE_CHARS ? s.substring(0, MAX_VALUE_CHARS) + "…" : s;
  }
}
