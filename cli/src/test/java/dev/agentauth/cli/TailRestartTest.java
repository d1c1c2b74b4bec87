package dev.agentauth.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.AuthorizationCreateParams;
import dev.agentauth.client.CheckParams;
import dev.agentauth.client.ReceiptListParams;
import dev.agentauth.model.ReceiptSummary;
import dev.agentauth.server.AgentAuthServer;
import dev.agentauth.server.store.jdbc.JdbcStore;
import dev.agentauth.server.store.jdbc.MasterKey;
import dev.agentauth.verifier.ChainVerifier;
import dev.agentauth.verifier.ReceiptVerifier;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code receipts tail} follows live and survives a server restart: no gap, no duplicate. */
class TailRestartTest {
  static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @Test
  void tailSurvivesAServerRestartWithoutAGapOrADuplicate() throws Exception {
    Path db = dir.resolve("agentauth.db");
    MasterKey masterKey = MasterKey.random();
    AgentAuthServer first =
        AgentAuthServer.builder().port(0).store(JdbcStore.sqlite(db, masterKey)).build().start();
    int port = first.port();
    String apiKey = first.apiKey();
    String baseUrl = first.baseUrl();
    AgentAuthClient client = AgentAuthClient.builder().baseUrl(baseUrl).apiKey(apiKey).build();
    String id =
        client
            .authorizations()
            .create(
                AuthorizationCreateParams.inline()
                    .userId("user_1")
                    .agentId("agent_1")
                    .scope("docs.read")
                    .expiresAt(Instant.now().plus(Duration.ofDays(1)))
                    .build())
            .authorizationId();
    // 1 creation + 5 checks of 2 scopes, before the restart; 5 more checks and a revocation after
    int total = 1 + 10 + 10 + 1;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    CliRunner runner = new CliRunner(dir).connectTo(baseUrl, apiKey);
    CompletableFuture<CliRunner.Result> tail =
        CompletableFuture.supplyAsync(
            () ->
                runner.run(
                    out,
                    err,
                    "receipts",
                    "tail",
                    "--json",
                    "--authorization",
                    id,
                    "--from-start",
                    "--poll-interval",
                    "50ms",
                    "--count",
                    Integer.toString(total)));
    for (int i = 0; i < 5; i++) {
      client.check(CheckParams.of(id, "docs.read", "docs.write"));
    }
    await(() -> lines(out).size() >= 6, "tail printed receipts before the restart");
    first.close();
    // the server stays down until the tail has noticed (past the client's own retries)
    await(
        () -> err.toString(StandardCharsets.UTF_8).contains("connection lost"),
        "tail noticed the server is down");

    AgentAuthServer second =
        AgentAuthServer.builder()
            .port(port)
            .store(JdbcStore.sqlite(db, masterKey))
            .apiKey(apiKey)
            .build()
            .start();
    try {
      for (int i = 0; i < 5; i++) {
        client.check(CheckParams.of(id, "docs.read", "docs.write"));
      }
      client.authorizations().revoke(id);

      CliRunner.Result result = tail.get(60, TimeUnit.SECONDS);
      assertThat(result.status()).as(result.toString()).isZero();
      assertThat(result.err()).contains("connection lost").contains("reconnected");
      List<String> printed = lines(out);
      List<String> ids = new ArrayList<>();
      for (String line : printed) {
        ids.add(JSON.readTree(line).path("receipt_id").asText());
      }
      List<String> held = new ArrayList<>();
      for (ReceiptSummary s :
          client
              .receipts()
              .listAutoPaging(ReceiptListParams.builder().authorizationId(id).build())) {
        held.add(s.receiptId());
      }
      assertThat(held).hasSize(total);
      assertThat(ids).containsExactlyElementsOf(held);
      ReceiptVerifier verifier =
          ReceiptVerifier.fromKeysJson(client.workspaces().keysJson(second.workspaceId()));
      assertThat(new ChainVerifier(verifier).verify(printed).valid()).isTrue();
    } finally {
      second.close();
    }
  }

  @Test
  void tailStartsWithNewReceiptsAndPrintsSummariesForPeople() throws Exception {
    try (AgentAuthServer server = AgentAuthServer.builder().port(0).build().start()) {
      AgentAuthClient client =
          AgentAuthClient.builder().baseUrl(server.baseUrl()).apiKey(server.apiKey()).build();
      String id =
          client
              .authorizations()
              .create(
                  AuthorizationCreateParams.inline()
                      .userId("user_1")
                      .agentId("agent_1")
                      .scope("docs.read")
                      .expiresAt(Instant.now().plus(Duration.ofDays(1)))
                      .build())
              .authorizationId();
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      CompletableFuture<CliRunner.Result> tail =
          CompletableFuture.supplyAsync(
              () ->
                  new CliRunner(dir)
                      .connectTo(server.baseUrl(), server.apiKey())
                      .run(out, "receipts", "tail", "--poll-interval", "50ms", "--count", "2"));
      // the creation receipt is older than the tail: not printed
      CliRunner.Result result;
      do {
        client.check(CheckParams.of(id, "docs.write"));
      } while (!tail.isDone() && !awaitQuietly(tail));
      result = tail.get(30, TimeUnit.SECONDS);
      assertThat(result.status()).as(result.toString()).isZero();
      assertThat(lines(out))
          .hasSize(2)
          .allMatch(l -> l.contains("deny") && l.contains("docs.write"));
    }
  }

  private static boolean awaitQuietly(CompletableFuture<?> f) {
    try {
      f.get(300, TimeUnit.MILLISECONDS);
      return true;
    } catch (Exception e) {
      return false;
    }
  }

  private static List<String> lines(ByteArrayOutputStream out) {
    return out.toString(StandardCharsets.UTF_8).lines().filter(l -> !l.isBlank()).toList();
  }

  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting: " + what);
      }
      TimeUnit.MILLISECONDS.sleep(20);
    }
  }
}
