package dev.agentauth.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.AuthorizationCreateParams;
import dev.agentauth.client.CheckParams;
import dev.agentauth.client.ReceiptListParams;
import dev.agentauth.model.AgentAuthJson;
import dev.agentauth.model.Authorization;
import dev.agentauth.model.CheckResult;
import dev.agentauth.model.Decision;
import dev.agentauth.model.ReceiptEvent;
import dev.agentauth.model.ReceiptLookup;
import dev.agentauth.model.ReceiptSummary;
import dev.agentauth.model.SignedReceipt;
import dev.agentauth.model.WorkspaceKeys;
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
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Receipts, from what the client hands out to a verifier's verdict: the Java of docs/client.md's
 * "Receipts" (with "Verifying receipts") and "Workspace keys", and of docs/receipt-format.md's
 * verification section, run against an embedded server. Each region is the twin of a fence (see
 * {@link DocSnippetsTest}); names a reader supplies in the doc ({@code email}, {@code show(...)})
 * are defined outside the regions.
 */
class VerifierDocSnippetsTest {
  private final List<Object> shown = new ArrayList<>();

  private void show(Object value) {
    shown.add(value);
  }

  private static AgentAuthClient client(AgentAuthServer server) {
    return AgentAuthClient.builder().baseUrl(server.baseUrl()).apiKey(server.apiKey()).build();
  }

  @Test
  void receiptsAreAwaitedLookedUpAndListed() {
    try (AgentAuthServer server = AgentAuthServer.builder().port(0).build().start()) {
      AgentAuthClient client = client(server);
      Authorization grant = grant(client, TestClock.startingNow());
      String authId = grant.authorizationId();
      String userId = "u_audited";
      CheckResult email =
          client.check(CheckParams.of(authId, "email.send")).results().get("email.send");
      client.check(CheckParams.of(authId, "files.delete")); // deny: not granted
      String receiptId = grant.receipt().receiptId();

      // spotless:off
      // @start region="await-signed"
      SignedReceipt signed = client.receipts().awaitSigned(email.receipt(), Duration.ofSeconds(10));
      SignedReceipt same = client.receipts().awaitSigned(receiptId, Duration.ofSeconds(10));
      // @end region="await-signed"
      // @start region="get-receipt"
      ReceiptLookup lookup = client.receipts().get(receiptId);
      if (lookup instanceof ReceiptLookup.Signed s) { show(s.receipt().decision()); }
      // @end region="get-receipt"
      // spotless:on

      assertThat(signed.decision()).isEqualTo(Decision.ALLOW);
      assertThat(signed.scope()).isEqualTo("email.send");
      assertThat(same.event()).isEqualTo(ReceiptEvent.AUTHORIZATION_CREATE);
      assertThat(shown).containsExactly(Decision.AUTHORIZATION_GRANTED);

      List<Decision> decisions = new ArrayList<>();
      // spotless:off
      // @start region="list-receipts"
      for (ReceiptSummary s : client.receipts().listAutoPaging(
          ReceiptListParams.builder().authorizationId(authId).build())) {
        decisions.add(s.decision());
      }

      long denials = client.receipts()
          .listAutoPaging(ReceiptListParams.builder().userId(userId)
              .from(Instant.now().minus(Duration.ofDays(30))).build())
          .stream()
          .filter(s -> Decision.DENY.equals(s.decision()))
          .count();
      // @end region="list-receipts"
      // spotless:on

      assertThat(decisions)
          .containsExactly(Decision.AUTHORIZATION_GRANTED, Decision.ALLOW, Decision.DENY);
      assertThat(denials).isEqualTo(1);
    }
  }

  @Test
  void anAuditorFetchesTheKeysWithoutAnApiKey() throws Exception {
    try (AgentAuthServer server = AgentAuthServer.builder().port(0).build().start()) {
      // spotless:off
      // @start region="workspace-keys"
      AgentAuthClient auditor = AgentAuthClient.builder()
          .baseUrl(server.baseUrl()).build();   // @replace substring="server.baseUrl()" replacement='"https://agentauth.example.com"'
      // @replace substring="server.workspaceId()" replacement='"ws_acme"':
      WorkspaceKeys keys = auditor.workspaces().keys(server.workspaceId());        // typed, for reading
      // @replace substring="server.workspaceId()" replacement='"ws_acme"':
      String keysJson = auditor.workspaces().keysJson(server.workspaceId());       // as served, for a verifier
      // @end region="workspace-keys"
      // spotless:on

      assertThat(keys.workspaceId()).isEqualTo(server.workspaceId());
      assertThat(keys.keys()).isNotEmpty();
      assertThat(AgentAuthJson.newObjectMapper().readValue(keysJson, WorkspaceKeys.class))
          .isEqualTo(keys);
      assertThat(ReceiptVerifier.fromKeysJson(keysJson).workspaceId())
          .isEqualTo(server.workspaceId());
    }
  }

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
                      .expiresAt(Instant.now().plus(Duration.ofDays(1)))
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
