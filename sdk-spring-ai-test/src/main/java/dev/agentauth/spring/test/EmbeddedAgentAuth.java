package dev.agentauth.spring.test;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.ApiKeyCreateParams;
import dev.agentauth.client.AuthorizationCreateParams;
import dev.agentauth.model.ApiKey;
import dev.agentauth.model.ApiKeyRole;
import dev.agentauth.server.AgentAuthServer;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.springframework.core.env.Environment;

/**
 * The embedded agentauth reference server of one test application context (see {@link
 * EmbeddedAgentAuthServer}): in memory, on a free loopback port, started on first use. The
 * application gets {@link #applicationKey()}; the test acts as the workspace's administrator with
 * {@link #adminClient()} (grants, approvals, receipts). Thread-safe.
 */
public final class EmbeddedAgentAuth implements AutoCloseable {

  /** The property that chooses the role of the application's key; default {@code tool_server}. */
  public static final String ROLE_PROPERTY = "agentauth.test.api-key-role";

  private final Environment environment;
  private AgentAuthServer server;
  private AgentAuthClient adminClient;
  private ApiKey applicationKey;
  private boolean closed;

  EmbeddedAgentAuth(Environment environment) {
    this.environment = Objects.requireNonNull(environment, "environment");
  }

  private synchronized void start() {
    if (closed) {
      throw new IllegalStateException("the embedded agentauth server was stopped with its context");
    }
    if (server != null) {
      return;
    }
    String role = environment.getProperty(ROLE_PROPERTY, "tool_server");
    AgentAuthServer started = AgentAuthServer.builder().port(0).build().start();
    try {
      AgentAuthClient admin =
          AgentAuthClient.builder().baseUrl(started.baseUrl()).apiKey(started.apiKey()).build();
      applicationKey =
          admin
              .apiKeys()
              .create(ApiKeyCreateParams.of(ApiKeyRole.of(role)).withName("spring-boot-test"));
      adminClient = admin;
      server = started;
    } catch (RuntimeException e) {
      started.close();
      throw new IllegalStateException(
          ROLE_PROPERTY + "=" + role + ": could not create the application's key: " + e, e);
    }
  }

  /** Returns the running server (started if needed). */
  public synchronized AgentAuthServer server() {
    start();
    return server;
  }

  /** Returns the server's URL, as {@code agentauth.base-url} has it. */
  public String baseUrl() {
    return server().baseUrl();
  }

  /** Returns the application's key ({@code agentauth.api-key}), of role {@link #ROLE_PROPERTY}. */
  public synchronized ApiKey applicationKey() {
    start();
    return applicationKey;
  }

  /**
   * Returns a client holding the workspace's {@code full} key, for what the test does as the
   * application's administrator: create grants, resolve escalations, read receipts. Never give it
   * to the application under test.
   */
  public synchronized AgentAuthClient adminClient() {
    start();
    return adminClient;
  }

  /**
   * Returns a grant to {@code userId} for this application's agent ({@code agentauth.mcp.agent-id},
   * else {@code spring.application.name}), expiring in a day: add scopes, then {@code build()} and
   * create it with {@link #adminClient()}.
   *
   * @throws IllegalStateException if neither property is set
   */
  public AuthorizationCreateParams.InlineBuilder grant(String userId) {
    String agent = environment.getProperty("agentauth.mcp.agent-id");
    if (agent == null || agent.isBlank()) {
      agent = environment.getProperty("spring.application.name");
    }
    if (agent == null || agent.isBlank()) {
      throw new IllegalStateException(
          "neither agentauth.mcp.agent-id nor spring.application.name is set: the grant needs the"
              + " application's agent id");
    }
    return AuthorizationCreateParams.inline()
        .userId(userId)
        .agentId(agent)
        .expiresAt(Instant.now().plus(Duration.ofDays(1)));
  }

  /** Stops the server, if it was started. */
  @Override
  public synchronized void close() {
    closed = true;
    if (server != null) {
      server.close();
    }
  }
}
