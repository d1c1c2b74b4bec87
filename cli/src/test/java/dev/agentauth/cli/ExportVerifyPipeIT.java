package dev.agentauth.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.AuthorizationCreateParams;
import dev.agentauth.client.CheckParams;
import dev.agentauth.client.ReceiptListParams;
import dev.agentauth.model.ReceiptSummary;
import dev.agentauth.server.AgentAuthServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shaded jars as an auditor runs them: {@code agentauth.jar receipts export |
 * agentauth-verify.jar verify --chain -}, over 10,001 receipts spread over 101 pages.
 */
class ExportVerifyPipeIT {
  static final ObjectMapper JSON = new ObjectMapper();
  static Path cliJar;
  static Path verifyJar;

  @TempDir Path dir;

  @BeforeAll
  static void findJars() {
    cliJar = Path.of(System.getProperty("agentauth.cli.jar", "target/agentauth.jar"));
    verifyJar =
        Path.of(
            System.getProperty(
                "agentauth.verify.jar", "../sdk-verifier/target/agentauth-verify.jar"));
    assertThat(cliJar).as("the shaded CLI jar (mvn package first)").isRegularFile();
    assertThat(verifyJar).as("the verifier's shaded jar (mvn package first)").isRegularFile();
  }

  static ProcessBuilder java(Path jar, String... args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-jar");
    command.add(jar.toString());
    command.addAll(List.of(args));
    return new ProcessBuilder(command);
  }

  static ProcessBuilder agentauth(AgentAuthServer server, Path dir, String... args) {
    ProcessBuilder pb = java(cliJar, args);
    pb.environment().put(Cli.ENV_BASE_URL, server.baseUrl());
    pb.environment().put(Cli.ENV_API_KEY, server.apiKey());
    pb.environment().put("XDG_CONFIG_HOME", dir.toString());
    pb.environment().remove(Cli.ENV_PROFILE);
    return pb;
  }

  @Test
  void theJarRunsHelp() throws Exception {
    Path out = dir.resolve("help.txt");
    Process p =
        java(cliJar, "--help").redirectErrorStream(true).redirectOutput(out.toFile()).start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isZero();
    assertThat(Files.readString(out)).contains("Usage: agentauth").contains("receipts");
  }

  @Test
  void tenThousandReceiptsExportAcrossPagesEqualTheServersAndVerifyThroughAPipe() throws Exception {
    try (AgentAuthServer server = AgentAuthServer.builder().port(0).build().start()) {
      AgentAuthClient client =
          AgentAuthClient.builder().baseUrl(server.baseUrl()).apiKey(server.apiKey()).build();
      List<String> scopes = new ArrayList<>();
      AuthorizationCreateParams.InlineBuilder grant =
          AuthorizationCreateParams.inline()
              .userId("user_1")
              .agentId("agent_1")
              .expiresAt(Instant.now().plus(Duration.ofDays(1)));
      for (int i = 0; i < 20; i++) {
        scopes.add("tool.s" + i);
        grant.scope("tool.s" + i);
      }
      String id = client.authorizations().create(grant.build()).authorizationId();
      for (int i = 0; i < 500; i++) {
        client.check(CheckParams.builder().authorizationId(id).scopes(scopes).build());
      }

      Path keys = dir.resolve("keys.json");
      Process k = agentauth(server, dir, "signing-keys").redirectOutput(keys.toFile()).start();
      assertThat(k.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(k.exitValue()).isZero();

      // export | verify, as a pipe
      Path report = dir.resolve("report.txt");
      Path exportErr = dir.resolve("export-err.txt");
      List<Process> pipe =
          ProcessBuilder.startPipeline(
              List.of(
                  agentauth(server, dir, "receipts", "export", "--authorization", id)
                      .redirectError(exportErr.toFile()),
                  java(verifyJar, "verify", "--keys", keys.toString(), "--chain", "-")
                      .redirectOutput(report.toFile())
                      .redirectErrorStream(true)));
      for (Process p : pipe) {
        assertThat(p.waitFor(300, TimeUnit.SECONDS)).isTrue();
      }
      String verdict = Files.readString(report, StandardCharsets.UTF_8);
      assertThat(pipe.get(0).exitValue()).as(Files.readString(exportErr)).isZero();
      assertThat(Files.readString(exportErr)).as("no progress on a pipe").isEmpty();
      assertThat(pipe.get(1).exitValue()).as(tail(verdict)).isZero();
      assertThat(verdict)
          .contains("CHAIN   " + id + "  VALID (10001 receipts)")
          .contains("RESULT  VALID  10001 receipts: 10001 valid, 0 invalid");

      // the export equals what the server holds: every receipt once, in order
      Path file = dir.resolve("chain.ndjson");
      Process e =
          agentauth(server, dir, "receipts", "export", "--authorization", id, "-o", file.toString())
              .start();
      assertThat(e.waitFor(300, TimeUnit.SECONDS)).isTrue();
      assertThat(e.exitValue()).isZero();
      List<String> exported = new ArrayList<>();
      for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
        exported.add(JSON.readTree(line).path("receipt_id").asText());
      }
      List<String> held = new ArrayList<>();
      for (ReceiptSummary s :
          client
              .receipts()
              .listAutoPaging(ReceiptListParams.builder().authorizationId(id).limit(100).build())) {
        held.add(s.receiptId());
      }
      assertThat(held).hasSize(10_001);
      assertThat(exported).containsExactlyElementsOf(held);
    }
  }

  private static String tail(String text) throws IOException {
    return text.length() > 2000 ? text.substring(text.length() - 2000) : text;
  }
}
