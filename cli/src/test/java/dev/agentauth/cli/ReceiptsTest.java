package dev.agentauth.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.AuthorizationCreateParams;
import dev.agentauth.client.CheckParams;
import dev.agentauth.client.ReceiptListParams;
import dev.agentauth.model.ReceiptSummary;
import dev.agentauth.server.AgentAuthServer;
import dev.agentauth.verifier.ChainVerifier;
import dev.agentauth.verifier.ReceiptVerifier;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code receipts list} and {@code receipts export} against the embedded server. */
class ReceiptsTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static AgentAuthServer server;
  static AgentAuthClient client;
  static String authorizationId;
  static String otherAuthorizationId;
  static Instant before;

  @TempDir Path dir;

  @BeforeAll
  static void start() {
    server = AgentAuthServer.builder().port(0).build().start();
    client = AgentAuthClient.builder().baseUrl(server.baseUrl()).apiKey(server.apiKey()).build();
    before = Instant.now().minusSeconds(1);
    authorizationId = grant("user_1");
    otherAuthorizationId = grant("user_2");
    client.check(
        CheckParams.builder()
            .authorizationId(authorizationId)
            .scope("docs.read")
            .resource("doc:1")
            .build());
    client.check(CheckParams.of(authorizationId, "docs.read", "docs.write"));
    client.check(CheckParams.of(otherAuthorizationId, "docs.read"));
    client.authorizations().revoke(authorizationId);
  }

  static String grant(String user) {
    return client
        .authorizations()
        .create(
            AuthorizationCreateParams.inline()
                .userId(user)
                .agentId("agent_1")
                .scope("docs.read")
                .expiresAt(Instant.now().plus(Duration.ofDays(1)))
                .build())
        .authorizationId();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  CliRunner cli() {
    return new CliRunner(dir).connectTo(server.baseUrl(), server.apiKey());
  }

  @Test
  void listFiltersAndPages() throws Exception {
    CliRunner.Result chain = cli().run("receipts", "list", "--authorization", authorizationId);
    assertThat(chain.status()).as(chain.toString()).isZero();
    assertThat(chain.out().lines().count()).isEqualTo(1 + 5);
    assertThat(chain.out()).contains("authorization.create").contains("authorization.revoke");

    JsonNode denied =
        JSON.readTree(
            cli()
                .run(
                    "receipts",
                    "list",
                    "--authorization",
                    authorizationId,
                    "--decision",
                    "deny",
                    "--json")
                .out());
    assertThat(denied.path("receipts")).hasSize(1);
    assertThat(denied.path("receipts").get(0).path("scope").asText()).isEqualTo("docs.write");

    assertThat(
            JSON.readTree(
                    cli()
                        .run("receipts", "list", "--event", "authorization.create", "--json")
                        .out())
                .path("receipts"))
        .hasSize(2);
    assertThat(
            JSON.readTree(cli().run("receipts", "list", "--user", "user_2", "--json").out())
                .path("receipts"))
        .hasSize(2);
    assertThat(
            JSON.readTree(cli().run("receipts", "list", "--resource", "doc:1", "--json").out())
                .path("receipts"))
        .hasSize(1);
    assertThat(
            JSON.readTree(cli().run("receipts", "list", "--scope", "docs.write", "--json").out())
                .path("receipts"))
        .hasSize(1);
    assertThat(
            JSON.readTree(cli().run("receipts", "list", "--to", before.toString(), "--json").out())
                .path("receipts"))
        .isEmpty();

    CliRunner.Result page = cli().run("receipts", "list", "--limit", "2");
    assertThat(page.out().lines().count()).isEqualTo(3);
    String hint = page.err().strip();
    assertThat(hint).startsWith("more: add --cursor ");
    String cursor = hint.substring("more: add --cursor ".length()).split(" ")[0];
    CliRunner.Result next = cli().run("receipts", "list", "--limit", "2", "--cursor", cursor);
    assertThat(next.status()).as(next.toString()).isZero();
    assertThat(
            JSON.readTree(cli().run("receipts", "list", "--all", "--limit", "2", "--json").out())
                .path("receipts"))
        .hasSize(7);

    CliRunner.Result wrongCursor =
        cli().run("receipts", "list", "--cursor", cursor, "--scope", "x");
    assertThat(wrongCursor.status()).isEqualTo(2);
    assertThat(wrongCursor.err()).contains("cursor");
  }

  @Test
  void exportWritesEachReceiptAsServedAndTheChainVerifies() throws Exception {
    CliRunner.Result r = cli().run("receipts", "export", "--authorization", authorizationId);

    assertThat(r.status()).as(r.toString()).isZero();
    assertThat(r.err()).isEmpty();
    List<String> lines = r.out().lines().toList();
    List<String> served = new ArrayList<>();
    for (ReceiptSummary s :
        client
            .receipts()
            .listAutoPaging(ReceiptListParams.builder().authorizationId(authorizationId).build())) {
      served.add(client.receipts().awaitSignedJson(s.receiptId(), Duration.ofSeconds(10)));
    }
    assertThat(lines).containsExactlyElementsOf(served).hasSize(5);
    ReceiptVerifier verifier =
        ReceiptVerifier.fromKeysJson(client.workspaces().keysJson(server.workspaceId()));
    assertThat(new ChainVerifier(verifier).verify(lines).valid()).isTrue();
  }

  @Test
  void exportByTimeToAFileWithProgressOnATerminalOnly() throws Exception {
    Path out = dir.resolve("all.ndjson");
    CliRunner.Result r =
        cli()
            .terminal(true)
            .run(
                "receipts",
                "export",
                "--from",
                before.toString(),
                "--to",
                Instant.now().plusSeconds(60).toString(),
                "-o",
                out.toString());

    assertThat(r.status()).as(r.toString()).isZero();
    assertThat(Files.readAllLines(out, StandardCharsets.UTF_8)).hasSize(7);
    assertThat(r.err()).contains("exported 7 receipts");

    CliRunner.Result quiet =
        cli()
            .terminal(true)
            .run("receipts", "export", "--authorization", otherAuthorizationId, "--json");
    assertThat(quiet.err()).isEmpty();
    assertThat(quiet.out().lines()).hasSize(2);
    CliRunner.Result pipe =
        cli().run("receipts", "export", "--authorization", otherAuthorizationId);
    assertThat(pipe.err()).isEmpty();
  }

  @Test
  void receiptsStillPendingAtTheTimeoutAreNamedAndExit1() throws Exception {
    String id = "01JDPENDING000000000000000";
    HttpServer fake = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    fake.createContext(
        "/v1/receipts",
        exchange -> {
          String path = exchange.getRequestURI().getPath();
          String body =
              path.equals("/v1/receipts")
                  ? "{\"receipts\":[{\"receipt_id\":\""
                      + id
                      + "\",\"authorization_id\":\"auth_1\","
                      + "\"scope\":\"s\",\"event\":null,\"decision\":\"allow\",\"signed\":false,"
                      + "\"created_at\":\"2026-11-27T00:00:00.000Z\"}],\"has_more\":false,"
                      + "\"next_cursor\":null}"
                  : "{\"status\":\"pending\",\"receipt_id\":\""
                      + id
                      + "\",\"ready_at_estimate\":"
                      + "\"2026-11-27T00:00:00.100Z\",\"url\":\"http://x/v1/receipts/"
                      + id
                      + "\"}";
          byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, bytes.length);
          exchange.getResponseBody().write(bytes);
          exchange.close();
        });
    fake.start();
    try {
      CliRunner.Result r =
          new CliRunner(dir)
              .connectTo("http://127.0.0.1:" + fake.getAddress().getPort(), "sk_test")
              .run("receipts", "export", "--authorization", "auth_1", "--wait-timeout", "1s");

      assertThat(r.status()).isEqualTo(1);
      assertThat(r.err()).contains("1 receipt(s) still pending after 1s").contains(id);
      assertThat(r.out()).isEmpty();
    } finally {
      fake.stop(0);
    }
  }
}
