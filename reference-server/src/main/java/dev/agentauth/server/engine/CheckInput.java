package dev.agentauth.server.engine;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/** A validated {@code /v1/check} request. */
public record CheckInput(
    String authorizationId,
    List<String> scopes,
    String resource,
    String sessionId,
    Long estimatedCostMicros,
    ObjectNode context) {

  public CheckInput {
    scopes = List.copyOf(scopes);
  }

  /** {@code context.initiated_by} when it is a string, else null. */
  public String initiatedBy() {
    if (context == null || !context.path("initiated_by").isTextual()) {
      return null;
    }
    return context.get("initiated_by").asText();
  }
}
