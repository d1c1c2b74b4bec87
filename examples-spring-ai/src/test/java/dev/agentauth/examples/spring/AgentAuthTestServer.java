package dev.agentauth.examples.spring;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.ApiKeyCreateParams;
import dev.agentauth.client.AuthorizationCreateParams;
import dev.agentauth.client.ReceiptListParams;
import dev.agentauth.mcp.DecisionListener;
import dev.agentauth.mcp.GuardDecision;
import dev.agentauth.model.ApiKey;
import dev.agentauth.model.ApiKeyRole;
import dev.agentauth.server.AgentAuthServer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.StreamSupport;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * The embedded agentauth reference server the example is tested against (one per JVM), with the
 * grants the tests use: alice may read notes, send email after confirming, and delete notes once a
 * security approver agrees; bob may only read notes; carol has nothing. The example server holds a
 * {@code tool_server} key ({@link #toolServerKey()}), as docs/spring-ai.md advises: it checks,
 * reads, and answers confirmations with the user's answer from their client; the tests act as the
 * application and the approvers with the workspace's {@code full} key ({@link #client()}).
 */
final class AgentAuthTestServer {
  static final String AGENT = "notes-bot";

  private static AgentAuthServer server;
  private static AgentAuthClient client;
  private static ApiKey toolServerKey;

  private AgentAuthTestServer() {}

  static synchronized AgentAuthServer server() {
    if (server == null) {
      server = AgentAuthServer.builder().port(0).build().start();
      client = AgentAuthClient.builder().baseUrl(server.baseUrl()).apiKey(server.apiKey()).build();
      client
          .authorizations()
          .create(
              grant("alice")
                  .scope("notes.read")
                  .scope("email.send")
                  .scope("notes.delete")
                  .requiresConfirmFor("email.send")
                  .requiresEscalationFor("notes.delete")
                  .escalationTarget("notes.delete", "security")
                  .build());
      client.authorizations().create(grant("bob").scope("notes.read").build());
      toolServerKey =
          client
              .apiKeys()
              .create(ApiKeyCreateParams.of(ApiKeyRole.TOOL_SERVER).withName("notes-mcp-server"));
      Runtime.getRuntime().addShutdownHook(new Thread(server::close));
    }
    return server;
  }

  static AgentAuthClient client() {
    server();
    return client;
  }

  /** The example server's own key, of role {@code tool_server}. */
  static synchronized ApiKey toolServerKey() {
    server();
    return toolServerKey;
  }

  static AuthorizationCreateParams.InlineBuilder grant(String user) {
    return AuthorizationCreateParams.inline()
        .userId(user)
        .agentId(AGENT)
        .expiresAt(Instant.now().plus(Duration.ofDays(1)));
  }

  /** Points the starter at the embedded server. */
  static void register(DynamicPropertyRegistry registry) {
    registry.add("agentauth.base-url", () -> server().baseUrl());
    registry.add("agentauth.api-key", () -> toolServerKey().apiKey());
  }

  /** Every receipt of the workspace, counted. */
  static long receiptCount() {
    return StreamSupport.stream(
            client().receipts().listAutoPaging(ReceiptListParams.builder().build()).spliterator(),
            false)
        .count();
  }

  /** Collects the guard's decisions (the starter tells every DecisionListener bean). */
  @TestConfiguration(proxyBeanMethods = false)
  static class Decisions {
    @Bean
    DecisionLog decisionLog() {
      return new DecisionLog();
    }
  }

  static final class DecisionLog implements DecisionListener {
    final List<GuardDecision> decisions = new CopyOnWriteArrayList<>();

    @Override
    public void onDecision(GuardDecision decision) {
      decisions.add(decision);
    }

    GuardDecision last() {
      return decisions.get(decisions.size() - 1);
    }
  }
}
