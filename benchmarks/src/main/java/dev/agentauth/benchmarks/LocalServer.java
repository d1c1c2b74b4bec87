package dev.agentauth.benchmarks;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.AuthorizationCreateParams;
import dev.agentauth.server.AgentAuthServer;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * An embedded reference server on loopback with one authorization for scope {@code email.send} (no
 * limits), shared by the client and middleware benchmarks.
 */
final class LocalServer implements AutoCloseable {
  final AgentAuthServer server;
  final AgentAuthClient client;
  final String authorizationId;

  LocalServer() {
    server = AgentAuthServer.builder().port(0).build().start();
    client = AgentAuthClient.builder().baseUrl(server.baseUrl()).apiKey(server.apiKey()).build();
    authorizationId =
        client
            .authorizations()
            .create(
                AuthorizationCreateParams.inline()
                    .userId("bench_user")
                    .agentId("bench_agent")
                    .scope("email.send")
                    .expiresAt(Instant.now().plus(300, ChronoUnit.DAYS))
                    .build())
            .authorizationId();
  }

  @Override
  public void close() {
    client.okHttpClient().connectionPool().evictAll();
    server.close();
  }
}
