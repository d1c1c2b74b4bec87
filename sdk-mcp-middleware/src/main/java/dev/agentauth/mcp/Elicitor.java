package dev.agentauth.mcp;

import io.modelcontextprotocol.server.McpAsyncServerExchange;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema.ClientCapabilities;
import io.modelcontextprotocol.spec.McpSchema.ElicitFormRequest;
import io.modelcontextprotocol.spec.McpSchema.ElicitResult;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The session of a stateful MCP server as the in-client confirmation needs it: what the client
 * declared, and a way to ask it. Stateless servers have none (the guard then returns the {@code
 * confirm} result).
 */
interface Elicitor {

  /** Returns the client's declared capabilities, or {@code null} when unknown. */
  ClientCapabilities capabilities();

  /** Sends {@code elicitation/create} and completes with the client's answer. */
  Mono<ElicitResult> elicit(ElicitFormRequest request);

  static Elicitor of(McpAsyncServerExchange exchange) {
    if (exchange == null) {
      return null;
    }
    return new Elicitor() {
      @Override
      public ClientCapabilities capabilities() {
        return exchange.getClientCapabilities();
      }

      @Override
      public Mono<ElicitResult> elicit(ElicitFormRequest request) {
        return exchange.createElicitation(request);
      }
    };
  }

  /**
   * The sync exchange only blocks; its call runs on a bounded-elastic thread so that the guard's
   * timeout can give up waiting.
   */
  static Elicitor of(McpSyncServerExchange exchange) {
    if (exchange == null) {
      return null;
    }
    return new Elicitor() {
      @Override
      public ClientCapabilities capabilities() {
        return exchange.getClientCapabilities();
      }

      @Override
      public Mono<ElicitResult> elicit(ElicitFormRequest request) {
        return Mono.fromCallable(() -> exchange.createElicitation(request))
            .subscribeOn(Schedulers.boundedElastic());
      }
    };
  }
}
