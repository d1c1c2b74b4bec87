package dev.agentauth.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.AuthorizationCreateParams;
import dev.agentauth.client.CheckParams;
import dev.agentauth.model.Authorization;
import dev.agentauth.model.CheckResult;
import dev.agentauth.server.AgentAuthServer;
import dev.agentauth.server.TestClock;
import dev.agentauth.verifier.ChainProblem;
import dev.agentauth.verifier.ChainReport;
import dev.agentauth.verifier.ChainVerifier;
import dev.agentauth.verifier.ReceiptVerifier;
import dev.agentauth.verifier.VerificationResult;
import dev.agentauth.verifier.VerificationStep;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * From what the client hands out to a verifier's verdict: the Java of docs/client.md's "Verifying
 * receipts" and of docs/receipt-format.md's verification section, run against an embedded server.
 * Each region is the twin of a fence (see {@link DocSnippetsTest}).
 */
class VerifierDocSnippetsTest {

  /** A server on a test clock one hour ahead of real time, so receipts are issued in the future. */
  private static AgentAuthServer serverAheadOfRealTime(TestClock clock) {
    clock.advance(Duration.ofHours(1));
    return AgentAuthServer.builder().port(0).clock(clock).build().start();
  }

  private static Authorization grant(AgentAuthClient client, TestClock clock) {
    return client
        .authorizations()
        .create(
            AuthorizationCreateParams.inline()
                .userId("u_audited")
                .agentId("support_agent")
                .scope("email.send")
                .expiresAt(clock.instant().plus(Duration.ofDays(1)))
                .build());
  }

  @Test
  void aReceiptFromTheClientVerifiesAsServedAndATamperedOneDoesNot() {
    TestClock clock = TestClock.startingNow();
    try (AgentAuthServer server = serverAheadOfRealTime(clock)) {
      AgentAuthClient client =
          AgentAuthClient.builder().baseUrl(server.baseUrl()).apiKey(server.apiKey()).build();
      Authorization grant = grant(client, clock);
      CheckResult result =
          client
              .check(CheckParams.of(grant.authorizationId(), "email.send"))
              .results()
              .get("email.send");

      // spotless:off
      // @start region="verify-receipt"
      ReceiptVerifier verifier = ReceiptVerifier.builder()
          // @replace substring="server.workspaceId()" replacement='"ws_acme"':
          .keysJson(client.workspaces().keysJson(server.workspaceId()))   // the keys document as served
          .clock(clock)     // tests: the server's TestClock; in production leave it out
          .build();         // build once, verify any number of receipts

      String receipt = client.receipts()
          .awaitSignedJson(result.receipt().receiptId(), Duration.ofSeconds(10));   // as served
      VerificationResult verdict = verifier.verify(receipt);
      if (!verdict.valid()) {
        System.err.println(verdict.failedStep() + ": " + verdict.message());
      }
      // @end region="verify-receipt"
      // spotless:on

      assertThat(verdict.valid()).as("%s", verdict).isTrue();
      assertThat(verdict.receiptId()).isEqualTo(result.receipt().receiptId());

      String tampered = receipt.replace("\"u_audited\"", "\"u_someone_else\"");
      assertThat(tampered).isNotEqualTo(receipt);
      assertThat(verifier.verify(tampered).failedStep()).isEqualTo(VerificationStep.SIGNATURE);

      // Without .clock(clock) the system clock judges: an hour behind the server's, it rejects.
      ReceiptVerifier onSystemClock =
          ReceiptVerifier.builder()
              .keysJson(client.workspaces().keysJson(server.workspaceId()))
              .build();
      assertThat(onSystemClock.verify(receipt).failedStep()).isEqualTo(VerificationStep.TIMESTAMP);
    }
  }

  @Test
  void aChainFromTheClientVerifiesAsServedAndATamperedOneDoesNot() {
    TestClock clock = TestClock.startingNow();
    try (AgentAuthServer server = serverAheadOfRealTime(clock)) {
      AgentAuthClient client =
          AgentAuthClient.builder().baseUrl(server.baseUrl()).apiKey(server.apiKey()).build();
      Authorization grant = grant(client, clock);
      client.check(CheckParams.of(grant.authorizationId(), "email.send"));
      client.check(CheckParams.of(grant.authorizationId(), "files.delete")); // deny
      client.authorizations().revoke(grant.authorizationId());
      client.check(CheckParams.of(grant.authorizationId(), "email.send")); // deny: revoked
      ReceiptVerifier verifier =
          ReceiptVerifier.builder()
              .keysJson(client.workspaces().keysJson(server.workspaceId()))
              .clock(clock)
              .build();

      // spotless:off
      // @start region="verify-chain"
      List<String> chain = client.receipts()
          .chainJson(grant.authorizationId(), Duration.ofSeconds(10));   // oldest first, as served
      ChainReport report = new ChainVerifier(verifier).verify(chain);
      if (!report.valid()) {   // every problem is reported, each naming its receipt
        for (ChainProblem p : report.problems()) {
          System.err.println(p.kind() + " at " + p.index() + " (" + p.receiptId() + "): " + p.message());
        }
      }
      // @end region="verify-chain"
      // spotless:on

      assertThat(chain).hasSize(5); // create, two checks, revoke, the check after it
      assertThat(report.valid()).as("%s", report.problems()).isTrue();
      assertThat(report.authorizationId()).isEqualTo(grant.authorizationId());

      List<String> tampered = new ArrayList<>(chain);
      tampered.set(1, chain.get(1).replace("\"email.send\"", "\"email.sendall\""));
      assertThat(tampered.get(1)).isNotEqualTo(chain.get(1));
      ChainReport bad = new ChainVerifier(verifier).verify(tampered);
      assertThat(bad.valid()).isFalse();
      assertThat(bad.problems())
          .singleElement()
          .satisfies(
              p -> {
                assertThat(p.kind()).isEqualTo(ChainProblem.Kind.INVALID_RECEIPT);
                assertThat(p.index()).isEqualTo(1);
                assertThat(p.message()).contains("SIGNATURE");
              });
      assertThat(new ChainVerifier(verifier).verify(chain.subList(1, chain.size())).problems())
          .extracting(ChainProblem::kind)
          .containsExactly(ChainProblem.Kind.MISSING_CREATE);
    }
  }

  @Test
  void aReceiptVerifiesAgainstAKeysDocumentSavedToAFile(@TempDir Path dir) throws Exception {
    try (AgentAuthServer server = AgentAuthServer.builder().port(0).build().start()) {
      AgentAuthClient client =
          AgentAuthClient.builder().baseUrl(server.baseUrl()).apiKey(server.apiKey()).build();
      Path keysFile = dir.resolve("ws_acme-keys.json");
      Files.writeString(
          keysFile, client.workspaces().keysJson(server.workspaceId()), StandardCharsets.UTF_8);
      Authorization grant =
          client
              .authorizations()
              .create(
                  AuthorizationCreateParams.inline()
                      .userId("u_audited")
                      .agentId("support_agent")
                      .scope("email.send")
                      .expiresAt(java.time.Instant.now().plus(Duration.ofDays(1)))
                      .build());
      String receiptJson =
          client.receipts().awaitSignedJson(grant.receipt().receiptId(), Duration.ofSeconds(10));

      // spotless:off
      // @start region="verify-from-file"
      ReceiptVerifier verifier = ReceiptVerifier.builder()
          // @replace substring="keysFile" replacement='Path.of("ws_acme-keys.json")':
          .keys(keysFile)     // the trusted keys document
          .build();                               // clock: system UTC unless .clock(...) is given
      VerificationResult result = verifier.verify(receiptJson);
      if (!result.valid()) {
        System.err.println(result.failedStep() + ": " + result.message());
      }
      // @end region="verify-from-file"
      // spotless:on

      assertThat(result.valid()).as("%s", result).isTrue();
      assertThat(verifier.verify(receiptJson.replace("\"u_audited\"", "\"u_other\"")).failedStep())
          .isEqualTo(VerificationStep.SIGNATURE);
    }
  }
}
