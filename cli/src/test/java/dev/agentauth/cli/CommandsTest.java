package dev.agentauth.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.agentauth.server.AgentAuthServer;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** Every operator command against the embedded reference server, good and bad input. */
class CommandsTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static AgentAuthServer server;

  @TempDir Path dir;

  @BeforeAll
  static void start() {
    server = AgentAuthServer.builder().port(0).build().start();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  CliRunner cli() {
    return new CliRunner(dir).connectTo(server.baseUrl(), server.apiKey());
  }

  static JsonNode json(CliRunner.Result r) throws Exception {
    assertThat(r.status()).as(r.toString()).isZero();
    return JSON.readTree(r.out());
  }

  Path file(String name, String... lines) throws Exception {
    Path f = dir.resolve(name);
    Files.writeString(f, String.join("\n", lines) + "\n");
    return f;
  }

  static String tomorrow() {
    return Instant.now().plus(1, ChronoUnit.DAYS).truncatedTo(ChronoUnit.SECONDS).toString();
  }

  String createGrant(String... extraLines) throws Exception {
    List<String> lines =
        new ArrayList<>(
            List.of(
                "user_id: user_42",
                "agent_id: mail_agent",
                "expires_at: " + tomorrow(),
                "scopes:",
                "  - name: email.read",
                "  - name: email.send",
                "    constraints:",
                "      max_per_day: 20"));
    lines.addAll(List.of(extraLines));
    Path f = file("grant-" + System.nanoTime() + ".yaml", lines.toArray(String[]::new));
    return json(cli().run("grants", "create", "-f", f.toString(), "--json"))
        .path("authorization_id")
        .asText();
  }

  @Test
  void whoamiShowsTheKeyWithoutItsSecret() {
    CliRunner.Result r = cli().run("whoami");

    assertThat(r.status()).as(r.toString()).isZero();
    assertThat(r.out()).contains("workspace_id").contains(server.workspaceId()).contains("full");
    assertThat(r.out()).doesNotContain(server.apiKey());
  }

  @Test
  void keysCreateShowsTheSecretOnceListNeverAndARevokedKeyFailsReadably() throws Exception {
    CliRunner.Result created = cli().run("keys", "create", "--role", "agent", "--name", "mcp-prod");
    assertThat(created.status()).as(created.toString()).isZero();
    String secret =
        created.out().lines().filter(l -> l.startsWith("sk_")).findFirst().orElseThrow();
    String keyId = created.out().lines().skip(1).findFirst().orElseThrow().split("\\s+")[0];

    CliRunner.Result list = cli().run("keys", "list");
    assertThat(list.out()).contains(keyId).contains("mcp-prod").doesNotContain(secret);
    assertThat(json(cli().run("keys", "list", "--json")).toString()).doesNotContain(secret);

    CliRunner agent = new CliRunner(dir).connectTo(server.baseUrl(), secret);
    assertThat(agent.run("whoami").out()).contains("agent");
    // an agent key may not manage keys: 403, readable
    CliRunner.Result forbidden = agent.run("keys", "list");
    assertThat(forbidden.status()).isEqualTo(1);
    assertThat(forbidden.err()).contains("403 forbidden");

    assertThat(cli().run("keys", "revoke", keyId).status()).isZero();
    CliRunner.Result revoked = agent.run("whoami");
    assertThat(revoked.status()).isEqualTo(1);
    assertThat(revoked.err())
        .startsWith("agentauth: the API key was not accepted (revoked, expired or unknown)")
        .doesNotContain("Exception")
        .doesNotContain("\tat ")
        .doesNotContain(secret);
    CliRunner.Result again = cli().run("keys", "revoke", keyId);
    assertThat(again.status()).isEqualTo(1);
    assertThat(again.err()).contains("409 already_revoked");
  }

  @Test
  void grantsCreateFromYamlOrJsonThenListShowRevoke() throws Exception {
    String id = createGrant();
    assertThat(id).isNotBlank();

    Path jsonFile =
        file(
            "grant.json",
            "{\"user_id\": \"user_43\", \"agent_id\": \"a\", \"scopes\": [{\"name\": \"x.y\"}]}");
    CliRunner.Result fromJson =
        cli().run("grants", "create", "-f", jsonFile.toString(), "--expires-in", "2h");
    assertThat(fromJson.status()).as(fromJson.toString()).isZero();
    assertThat(fromJson.out()).startsWith("Created grant auth_").contains("user_43");

    CliRunner.Result show = cli().run("grants", "show", id);
    assertThat(show.out()).contains("email.read,email.send").contains("active");
    CliRunner.Result list = cli().run("grants", "list", "--user", "user_42", "--status", "active");
    assertThat(list.out()).contains(id).doesNotContain("user_43");
    JsonNode listed = json(cli().run("grants", "list", "--user", "user_43", "--json"));
    assertThat(listed.path("authorizations")).hasSize(1);

    CliRunner.Result revoke = cli().run("grants", "revoke", id, "--notes", "left the team");
    assertThat(revoke.status()).as(revoke.toString()).isZero();
    assertThat(revoke.out()).startsWith("Revoked " + id);
    assertThat(json(cli().run("grants", "show", id, "--json")).path("status").asText())
        .isEqualTo("revoked");
    CliRunner.Result twice = cli().run("grants", "revoke", id);
    assertThat(twice.status()).isEqualTo(1);
    assertThat(twice.err()).contains("409 already_revoked");
    CliRunner.Result unknown = cli().run("grants", "show", "auth_nope");
    assertThat(unknown.status()).isEqualTo(1);
    assertThat(unknown.err()).contains("404 not_found");
  }

  @Test
  void anUnknownFieldInAGrantFileIsExit2NamingItsPathAndNothingIsSent() throws Exception {
    Path f =
        file(
            "typo.yaml",
            "user_id: user_typo",
            "agent_id: mail_agent",
            "expires_at: " + tomorrow(),
            "scopes:",
            "  - name: email.read",
            "  - name: email.send",
            "    constraints:",
            "      max_per_dya: 20");

    CliRunner.Result r = cli().run("grants", "create", "-f", f.toString());

    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err())
        .contains("typo.yaml: scopes[1].constraints.max_per_dya: unknown field")
        .contains("max_per_day")
        .doesNotContain("Exception");
    assertThat(r.out()).isEmpty();
    assertThat(
            json(cli().run("grants", "list", "--user", "user_typo", "--json"))
                .path("authorizations"))
        .isEmpty();
  }

  @Test
  void wrongTypesMissingFieldsAndBrokenSyntaxAreExit2WithThePath() throws Exception {
    Path wrongType =
        file(
            "t.json",
            "{\"user_id\": \"u\", \"agent_id\": \"a\", \"expires_at\": \"" + tomorrow() + "\",",
            " \"scopes\": [{\"name\": \"s\", \"constraints\": {\"max_per_day\": \"ten\"}}]}");
    CliRunner.Result r1 = cli().run("grants", "create", "-f", wrongType.toString());
    assertThat(r1.status()).isEqualTo(2);
    assertThat(r1.err()).contains("scopes[0].constraints.max_per_day: expected an integer");

    Path missing =
        file("m.yaml", "agent_id: a", "scopes: [{name: s}]", "expires_at: " + tomorrow());
    CliRunner.Result r2 = cli().run("grants", "create", "-f", missing.toString());
    assertThat(r2.status()).isEqualTo(2);
    assertThat(r2.err()).contains("user_id: required");

    Path broken = file("b.yaml", "user_id: [unclosed");
    CliRunner.Result r3 = cli().run("grants", "create", "-f", broken.toString());
    assertThat(r3.status()).isEqualTo(2);
    assertThat(r3.err()).contains("b.yaml: not valid YAML");

    CliRunner.Result r4 =
        cli().run("grants", "create", "-f", dir.resolve("absent.yaml").toString());
    assertThat(r4.status()).isEqualTo(2);
    assertThat(r4.err()).contains("cannot read");
  }

  @Test
  void aRequestTheServiceRejectsIsExit2WithItsFieldErrors() throws Exception {
    Path past =
        file(
            "past.yaml",
            "user_id: u",
            "agent_id: a",
            "expires_at: 2020-01-01T00:00:00Z",
            "scopes: [{name: s}]");

    CliRunner.Result r = cli().run("grants", "create", "-f", past.toString());

    assertThat(r.status()).as(r.toString()).isEqualTo(2);
    assertThat(r.err()).contains("400 invalid_request").contains("expires_at");
  }

  @Test
  void checkExitsZeroOnlyWhenEveryScopeIsAllowed() throws Exception {
    String id = createGrant();

    CliRunner.Result allowed = cli().run("check", id, "email.read", "--resource", "mailbox:1");
    assertThat(allowed.status()).as(allowed.toString()).isZero();
    assertThat(allowed.out()).contains("email.read").contains("allow");

    CliRunner.Result denied = cli().run("check", id, "email.read", "files.delete");
    assertThat(denied.status()).isEqualTo(1);
    assertThat(denied.out())
        .contains("files.delete")
        .contains("deny")
        .contains("scope_not_authorized");

    JsonNode body = json(cli().run("check", id, "email.read", "--json"));
    assertThat(body.path("results").path("email.read").path("decision").asText())
        .isEqualTo("allow");

    CliRunner.Result bad = cli().run("check", id);
    assertThat(bad.status()).isEqualTo(2);
  }

  @Test
  void confirmationsApproveAndDecline() throws Exception {
    String id = createGrant("requires_confirm_for: [email.send]");

    JsonNode first = JSON.readTree(cli().run("check", id, "email.send", "--json").out());
    String nonce = first.path("results").path("email.send").path("confirm_nonce").asText();
    assertThat(nonce).isNotBlank();
    CliRunner.Result text = cli().run("check", id, "email.send");
    assertThat(text.status()).isEqualTo(1);
    assertThat(text.out()).contains("agentauth confirmations approve " + nonce);

    CliRunner.Result approve = cli().run("confirmations", "approve", nonce, "--ttl", "120s");
    assertThat(approve.status()).as(approve.toString()).isZero();
    assertThat(approve.out()).contains("approved");
    assertThat(cli().run("check", id, "email.send").status()).isZero();

    String id2 = createGrant("requires_confirm_for: [email.send]");
    String nonce2 =
        JSON.readTree(cli().run("check", id2, "email.send", "--json").out())
            .path("results")
            .path("email.send")
            .path("confirm_nonce")
            .asText();
    CliRunner.Result decline = cli().run("confirmations", "decline", nonce2, "--json");
    assertThat(json(decline).path("decision").asText()).isEqualTo("denied_by_user");
    CliRunner.Result gone = cli().run("confirmations", "decline", nonce2);
    assertThat(gone.status()).isEqualTo(1);
    assertThat(gone.err()).contains("410 nonce_gone");
  }

  @Test
  void escalationsListApproveAndReject() throws Exception {
    String id =
        createGrant(
            "requires_escalation_for: [email.send]", "escalation_targets: {email.send: manager}");

    CliRunner.Result check = cli().run("check", id, "email.send", "--resource", "r1");
    assertThat(check.status()).isEqualTo(1);
    assertThat(check.out()).contains("escalate");
    JsonNode pending = json(cli().run("escalations", "list", "--json")).path("escalations");
    String escalation = null;
    for (JsonNode e : pending) {
      if (e.path("authorization_id").asText().equals(id)) {
        escalation = e.path("escalation_id").asText();
      }
    }
    assertThat(escalation).isNotNull();
    assertThat(cli().run("escalations", "list").out()).contains(escalation).contains("manager");

    CliRunner.Result approve =
        cli().run("escalations", "approve", escalation, "--as", "mgr_7", "--note", "ok");
    assertThat(approve.status()).as(approve.toString()).isZero();
    assertThat(approve.out()).contains("approved by mgr_7").contains("receipt ");
    assertThat(cli().run("check", id, "email.send", "--resource", "r1").status()).isZero();

    cli().run("check", id, "email.send", "--resource", "r2");
    String second = null;
    for (JsonNode e : json(cli().run("escalations", "list", "--json")).path("escalations")) {
      if (e.path("resource").asText().equals("r2")) {
        second = e.path("escalation_id").asText();
      }
    }
    CliRunner.Result approverKey =
        cli().run("keys", "create", "--role", "approver", "--approver-id", "mgr_9", "--json");
    CliRunner approver =
        new CliRunner(dir).connectTo(server.baseUrl(), json(approverKey).path("api_key").asText());
    CliRunner.Result reject = approver.run("escalations", "reject", second);
    assertThat(reject.status()).as(reject.toString()).isZero();
    assertThat(reject.out()).contains("rejected by mgr_9");
    assertThat(cli().run("keys", "create", "--role", "approver").status()).isEqualTo(2);
    CliRunner.Result conflict = cli().run("escalations", "approve", second, "--as", "mgr_7");
    assertThat(conflict.status()).isEqualTo(1);
    assertThat(conflict.err()).contains("409 escalation_conflict");
  }

  @Test
  void aServerThatIsDownIsExit1ReadableWithoutAStackTrace() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    CliRunner.Result r =
        new CliRunner(dir).connectTo("http://127.0.0.1:" + port, "sk_abc").run("whoami");

    assertThat(r.status()).isEqualTo(1);
    assertThat(r.err())
        .startsWith("agentauth: cannot reach http://127.0.0.1:" + port)
        .doesNotContain("\tat ")
        .doesNotContain("sk_abc");
    assertThat(r.err().lines().count()).isLessThanOrEqualTo(2);
  }

  @Test
  void aRedirectIsNeverFollowedWithTheKey() throws Exception {
    HttpServer redirector = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    List<String> authorizations = new ArrayList<>();
    redirector.createContext(
        "/",
        exchange -> {
          authorizations.add(
              String.valueOf(exchange.getRequestHeaders().getFirst("Authorization")));
          exchange.getResponseHeaders().add("Location", server.baseUrl() + "/v1/api-keys/current");
          exchange.sendResponseHeaders(302, -1);
          exchange.close();
        });
    redirector.start();
    try {
      String url = "http://127.0.0.1:" + redirector.getAddress().getPort();
      CliRunner.Result r = new CliRunner(dir).connectTo(url, server.apiKey()).run("whoami");

      assertThat(r.status()).isEqualTo(1);
      assertThat(r.err()).contains("answered a redirect (302)").contains("never follows");
      assertThat(authorizations).hasSize(1);
    } finally {
      redirector.stop(0);
    }
  }

  @Test
  void signingKeysPrintsTheKeysDocumentAsServed() throws Exception {
    JsonNode keys = json(cli().run("signing-keys"));

    assertThat(keys.path("workspace_id").asText()).isEqualTo(server.workspaceId());
    assertThat(keys.path("keys")).isNotEmpty();
  }

  @Test
  void everyCommandHasHelpWithAnExample() {
    CommandLine root = AgentAuthCli.commandLine(new CliRunner(dir).cliForInspection());
    List<String> withoutExample = new ArrayList<>();
    List<CommandLine> all = new ArrayList<>();
    collect(root, all);
    for (CommandLine c : all) {
      if (c.getCommandName().equals("help")) {
        continue;
      }
      String[] path = c.getCommandSpec().qualifiedName(" ").split(" ");
      String[] args = new String[path.length];
      System.arraycopy(path, 1, args, 0, path.length - 1);
      args[path.length - 1] = "--help";
      CliRunner.Result r = new CliRunner(dir).run(args);
      assertThat(r.status()).as(String.join(" ", args)).isZero();
      if (!r.out().contains("Example")) {
        withoutExample.add(c.getCommandSpec().qualifiedName());
      }
    }
    assertThat(all).hasSizeGreaterThan(20);
    assertThat(withoutExample).isEmpty();
  }

  private static void collect(CommandLine c, List<CommandLine> all) {
    all.add(c);
    c.getSubcommands().values().forEach(s -> collect(s, all));
  }

  @Test
  void completionPrintsABashScriptForEveryCommand() {
    CliRunner.Result r = new CliRunner(dir).run("completion");

    assertThat(r.status()).isZero();
    assertThat(r.out()).contains("complete -F").contains("receipts").contains("tail");
  }

  @Test
  void unknownCommandsAndOptionsAreExit2() {
    assertThat(new CliRunner(dir).run("frobnicate").status()).isEqualTo(2);
    assertThat(new CliRunner(dir).run().status()).isEqualTo(2);
    assertThat(cli().run("receipts", "list", "--limit", "500").status()).isEqualTo(2);
  }
}
