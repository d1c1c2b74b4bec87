package dev.agentauth.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.server.AgentAuthServer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code bundles apply}: makes the workspace match the file, idempotently, with a diff. */
class BundlesApplyTest {
  static final ObjectMapper JSON = new ObjectMapper();

  AgentAuthServer server;

  @TempDir Path dir;

  @BeforeEach
  void start() {
    server = AgentAuthServer.builder().port(0).build().start();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  CliRunner cli() {
    return new CliRunner(dir).connectTo(server.baseUrl(), server.apiKey());
  }

  Path bundles(String sendLimit) throws Exception {
    Path f = dir.resolve("bundles.yaml");
    Files.writeString(
        f,
        String.join(
            "\n",
            "- id: mail-assistant",
            "  agent_id: mail_agent",
            "  default_expiry_days: 30",
            "  description: reads and sends mail",
            "  scopes:",
            "    - name: email.read",
            "    - name: email.send",
            "      constraints: {max_per_day: " + sendLimit + "}",
            "  requires_confirm_for: [email.send]",
            "- id: reader",
            "  agent_id: read_agent",
            "  scopes: [{name: docs.read}]",
            ""));
    return f;
  }

  @Test
  void applyTwiceChangesNothingTheSecondTime() throws Exception {
    Path f = bundles("50");

    CliRunner.Result first = cli().run("bundles", "apply", "-f", f.toString());
    assertThat(first.status()).as(first.toString()).isZero();
    assertThat(first.out())
        .contains("+ bundle mail-assistant created")
        .contains("+ bundle reader created")
        .contains("2 created, 0 updated, 0 unchanged");

    CliRunner.Result second = cli().run("bundles", "apply", "-f", f.toString());
    assertThat(second.status()).as(second.toString()).isZero();
    assertThat(second.out())
        .contains("= bundle mail-assistant unchanged")
        .contains("0 created, 0 updated, 2 unchanged");
    JsonNode asJson =
        JSON.readTree(cli().run("bundles", "apply", "-f", f.toString(), "--json").out());
    assertThat(asJson.path("bundles").findValuesAsText("action")).containsOnly("unchanged");

    JsonNode listed = JSON.readTree(cli().run("bundles", "list", "--json").out());
    assertThat(listed.path("bundles")).hasSize(2);
    // a grant from the bundle works
    Path grant = dir.resolve("g.yaml");
    Files.writeString(grant, "user_id: u1\nbundle_id: mail-assistant\n");
    CliRunner.Result g = cli().run("grants", "create", "-f", grant.toString());
    assertThat(g.status()).as(g.toString()).isZero();
    assertThat(g.out()).contains("mail-assistant");
  }

  @Test
  void aChangedFileUpdatesOnlyWhatDiffersAndDryRunChangesNothing() throws Exception {
    cli().run("bundles", "apply", "-f", bundles("50").toString());
    Path changed = bundles("10");

    CliRunner.Result dry = cli().run("bundles", "apply", "-f", changed.toString(), "--dry-run");
    assertThat(dry.status()).as(dry.toString()).isZero();
    assertThat(dry.out())
        .contains("~ bundle mail-assistant (would be updated)")
        .contains("scopes: ")
        .contains("\"max_per_day\":50")
        .contains("-> ")
        .contains("\"max_per_day\":10")
        .contains("= bundle reader unchanged")
        .contains("dry run: 0 created, 1 updated, 1 unchanged");
    assertThat(dry.out()).doesNotContain("description:");

    CliRunner.Result stillOld =
        cli().run("bundles", "apply", "-f", changed.toString(), "--dry-run");
    assertThat(stillOld.out()).contains("would be updated");

    CliRunner.Result apply = cli().run("bundles", "apply", "-f", changed.toString());
    assertThat(apply.out()).contains("~ bundle mail-assistant updated");
    CliRunner.Result after = cli().run("bundles", "apply", "-f", changed.toString());
    assertThat(after.out()).contains("0 created, 0 updated, 2 unchanged");
  }

  @Test
  void anUnknownFieldInTheSecondBundleNamesItsPath() throws Exception {
    Path f = dir.resolve("bad.yaml");
    Files.writeString(
        f, "- id: a\n  agent_id: x\n  scopes: [{name: s}]\n- id: b\n  agent_id: y\n  scope: []\n");

    CliRunner.Result r = cli().run("bundles", "apply", "-f", f.toString());

    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).contains("bad.yaml: [1].scope: unknown field");
    assertThat(JSON.readTree(cli().run("bundles", "list", "--json").out()).path("bundles"))
        .isEmpty();
  }
}
