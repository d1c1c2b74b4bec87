package dev.agentauth.examples;

import static dev.agentauth.examples.ExampleTestSupport.JSON;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.AuthorizationCreateParams;
import dev.agentauth.client.CheckParams;
import dev.agentauth.server.AgentAuthServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link AuditReceipts} exports a chain and the keys, and the auditor CLI judges them. */
class AuditReceiptsIT {

  @Test
  void theDemoAuditIsValid(@TempDir Path dir) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    AuditReceipts.Result result;
    try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
      result = AuditReceipts.runDemo(dir, out);
    }
    String transcript = bytes.toString(StandardCharsets.UTF_8);

    // create + 5 checks + revoke
    assertThat(result.receipts()).isEqualTo(7);
    assertThat(result.valid()).as(transcript).isTrue();
    assertThat(Files.readAllLines(result.chainFile())).hasSize(7);
    assertThat(JSON.readTree(result.keysFile().toFile()).path("keys").isArray()).isTrue();
    assertThat(result.command()).containsSubsequence("verify", "--keys", "--chain");
    assertThat(transcript)
        .contains("exported 7 signed receipts of " + result.authorizationId())
        .contains("auditor verdict: VALID (exit 0)");
    // The auditor's own report (its exact wording belongs to sdk-verifier).
    assertThat(result.output()).contains(result.authorizationId()).doesNotContain("INVALID");
  }

  @Test
  void anAuthorizationOfAServiceByUrlAndATamperedExportIsInvalid(@TempDir Path dir)
      throws Exception {
    try (AgentAuthServer server = AgentAuthServer.builder().port(0).build().start()) {
      AgentAuthClient client =
          AgentAuthClient.builder().baseUrl(server.baseUrl()).apiKey(server.apiKey()).build();
      String id =
          client
              .authorizations()
              .create(
                  AuthorizationCreateParams.inline()
                      .userId("user_42")
                      .agentId("audit_agent")
                      .scope("docs.read")
                      .expiresAt(Instant.now().plus(Duration.ofDays(1)))
                      .build())
              .authorizationId();
      for (String scope : List.of("docs.read", "docs.write", "docs.read")) {
        client.check(CheckParams.builder().authorizationId(id).scope(scope).build());
      }

      AuditReceipts.Result result =
          AuditReceipts.run(
              server.baseUrl(),
              server.apiKey(),
              server.workspaceId(),
              id,
              dir,
              new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));

      assertThat(result.receipts()).isEqualTo(4);
      assertThat(result.valid()).as(result.output()).isTrue();
      List<String> lines = Files.readAllLines(result.chainFile());
      assertThat(lines).allSatisfy(l -> assertThat(JSON.readTree(l).path("signature").isObject()));

      // Turn the denial of docs.write into an allow: the signature no longer matches.
      List<String> tampered = new ArrayList<>();
      for (String line : lines) {
        JsonNode receipt = JSON.readTree(line);
        tampered.add(
            "docs.write".equals(receipt.path("scope").asText())
                ? line.replace("\"deny\"", "\"allow\"")
                : line);
      }
      assertThat(tampered).isNotEqualTo(lines);
      Path forged = dir.resolve("forged.ndjson");
      Files.write(forged, tampered);

      AuditReceipts.Result verdict = AuditReceipts.verify(result.keysFile(), forged);

      assertThat(verdict.exitCode()).as(verdict.output()).isEqualTo(1);
      assertThat(verdict.output()).contains("INVALID");
    }
  }
}
