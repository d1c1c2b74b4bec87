package dev.agentauth.examples.spring;

import java.time.Duration;
import org.springframework.ai.mcp.server.webmvc.transport.WebMvcStreamableServerTransportProvider;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * Closes the open MCP sessions first when the application stops. An MCP client keeps an event
 * stream open ({@code GET /mcp}) for the whole session; Spring Boot's graceful shutdown waits for
 * open requests, so without this it waits out {@code spring.lifecycle.timeout-per-shutdown-phase}
 * (30 s) before stopping. Closing the sessions ends those streams: the clients see the session end
 * and may reconnect elsewhere. Spring AI closes the transport itself only later, as its beans are
 * destroyed. Nothing to do on the stateless protocol, which keeps no stream open.
 */
@Component
class McpSessionsShutdown implements SmartLifecycle {
  private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

  private final ObjectProvider<WebMvcStreamableServerTransportProvider> transport;
  private volatile boolean running;

  McpSessionsShutdown(ObjectProvider<WebMvcStreamableServerTransportProvider> transport) {
    this.transport = transport;
  }

  @Override
  public void start() {
    running = true;
  }

  @Override
  public void stop() {
    running = false;
    transport.ifAvailable(t -> t.closeGracefully().block(CLOSE_TIMEOUT));
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  /** The last phase to start, so the first to stop: before the web server's graceful shutdown. */
  @Override
  public int getPhase() {
    return SmartLifecycle.DEFAULT_PHASE;
  }
}
