package dev.agentauth.server.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentauth.server.AgentAuthServer;
import dev.agentauth.server.ServerHarness;
import dev.agentauth.server.store.PostgresTestDatabase;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ReadLimitsContract} on PostgreSQL ({@code statement_timeout} stops a read), and reads kept
 * apart from writes: with every read connection held by a list, a check still answers at once.
 * (Skipped, saying how to provide a server, when no PostgreSQL answers.)
 */
class PostgresReadLimitsIT extends ReadLimitsContract {
  private String url;

  @BeforeEach
  void freshSchema() {
    PostgresTestDatabase.assumeAvailable();
    url = PostgresTestDatabase.freshSchemaUrl();
  }

  @AfterEach
  void dropTheSchema() throws InterruptedException {
    releaseHeldReads();
    if (url != null) {
      PostgresTestDatabase.dropSchema(url);
    }
  }

  @Override
  JdbcStore open(JdbcStore.ReadLimits limits) {
    return JdbcStore.postgres(url, MasterKey.random(), limits);
  }

  @Override
  String slowQuery() {
    return "SELECT count(*) FROM pg_sleep(30)";
  }

  @Test
  void aCheckAnswersAtOnceWhileListsHoldEveryReadConnection() throws InterruptedException {
    // As many reads as the write pool has connections: with one pool for both, as before, they
    // left a check no connection for its 10 s wait.
    JdbcStore store =
        open(new JdbcStore.ReadLimits(16, Duration.ofSeconds(1), Duration.ofSeconds(30)));
    try (ServerHarness h = ServerHarness.start(AgentAuthServer.builder().store(store))) {
      ServerHarness.Resp created =
          h.post(
              "/v1/authorizations",
              Map.of(
                  "user_id", "user_1",
                  "agent_id", "agent_1",
                  "scopes", java.util.List.of(Map.of("name", "email.send")),
                  "expires_at", "2026-12-22T10:00:00Z"));
      assertThat(created.status()).isEqualTo(201);
      String authorizationId = created.body().get("authorization_id").asText();
      holdReads(store, 16);

      long start = System.nanoTime();
      ServerHarness.Resp check =
          h.post(
              "/v1/check",
              Map.of(
                  "authorization_id",
                  authorizationId,
                  "scopes",
                  java.util.List.of("email.send"),
                  "resource",
                  "mailbox:1"));
      long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

      assertThat(check.status()).isEqualTo(200);
      JsonNode result = check.body().path("results").path("email.send");
      assertThat(result.path("decision").asText()).isEqualTo("allow");
      assertThat(tookMs).isLessThan(2_000L);
      release.countDown(); // before the store closes, which waits for its connections
    }
  }
}
