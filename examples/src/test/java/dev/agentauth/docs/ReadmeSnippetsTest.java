package dev.agentauth.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.ApiKeyCreateParams;
import dev.agentauth.client.AuthenticationException;
import dev.agentauth.client.AuthorizationCreateParams;
import dev.agentauth.client.CheckParams;
import dev.agentauth.client.UserIds;
import dev.agentauth.model.ApiKey;
import dev.agentauth.model.ApiKeyRole;
import dev.agentauth.model.Authorization;
import dev.agentauth.model.CheckResponse;
import dev.agentauth.model.CheckResult;
import dev.agentauth.model.Decision;
import dev.agentauth.model.Reason;
import dev.agentauth.server.AgentAuthServer;
import dev.agentauth.server.TestClock;
import dev.agentauth.verifier.ChainReport;
import dev.agentauth.verifier.ChainVerifier;
import dev.agentauth.verifier.ReceiptVerifier;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The Java of README.md, run. Each region is the twin of a fence (see {@link DocSnippetsTest}). */
class ReadmeSnippetsTest {

  @Test
  void agentDevelopersGrantOnceThenCheck() {
    try (AgentAuthServer server = AgentAuthServer.builder().port(0).build().start()) {
      String secret = "a-32-byte-or-longer-secret-for-user-ids";
      // spotless:off
      // @start region="grant-and-check"
      AgentAuthClient agentauth = AgentAuthClient.builder()
          .baseUrl(server.baseUrl()) // @replace substring="server.baseUrl()" replacement='"https://agentauth.example.com"'
          .apiKey(server.apiKey()) // @replace substring="server.apiKey()" replacement='System.getenv("AGENTAUTH_API_KEY")'
          .build();                                   // immutable, thread-safe: share one

      Authorization grant = agentauth.authorizations().create(
          AuthorizationCreateParams.inline()
              .userId(UserIds.keyedHash(secret, "ada@example.com"))   // never the raw e-mail
              .agentId("outreach_agent")
              .scope("email.send")
              .requiresConfirmFor("email.send")
              .expiresAt(Instant.now().plus(Duration.ofDays(30)))
              .build());

      CheckResponse r = agentauth.check(CheckParams.of(grant.authorizationId(), "email.send"));
      CheckResult result = r.results().get("email.send");   // allow / deny / confirm / escalate
      // @end region="grant-and-check"
      // spotless:on

      assertThat(result.decision()).isEqualTo(Decision.CONFIRM);
      assertThat(result.reason()).isEqualTo(Reason.SCOPE_REQUIRES_USER_CONFIRMATION);
    }
  }

  @Test
  void eachIntegrationHoldsTheLeastRoleItNeeds() {
    try (AgentAuthServer server = AgentAuthServer.builder().port(0).build().start()) {
      AgentAuthClient admin =
          AgentAuthClient.builder().baseUrl(server.baseUrl()).apiKey(server.apiKey()).build();
      // spotless:off
      // @start region="least-privilege-keys"
      // With a full key: one key per integration, each with the least role it needs.
      ApiKey toolServer = admin.apiKeys().create(
          ApiKeyCreateParams.of(ApiKeyRole.AGENT).withName("mcp-prod"));      // checks only
      ApiKey app = admin.apiKeys().create(ApiKeyCreateParams.of(ApiKeyRole.APP));
      ApiKey approver = admin.apiKeys().create(ApiKeyCreateParams.approver("appr_7"));
      ApiKey auditor = admin.apiKeys().create(ApiKeyCreateParams.of(ApiKeyRole.AUDITOR));
      // toolServer.apiKey() is shown only now; a leaked key is revoked in one call:
      admin.apiKeys().revoke(toolServer.keyId());
      // @end region="least-privilege-keys"
      // spotless:on
      assertThat(app.role()).isEqualTo(ApiKeyRole.APP);
      assertThat(approver.approverId()).isEqualTo("appr_7");
      assertThat(auditor.apiKey()).startsWith("sk_");
      AgentAuthClient revoked =
          AgentAuthClient.builder()
              .baseUrl(server.baseUrl())
              .apiKey(toolServer.apiKey())
              .maxRetries(0)
              .build();
      assertThatThrownBy(() -> revoked.apiKeys().current())
          .isInstanceOf(AuthenticationException.class);
    }
  }

  @Test
  void testersRunTheServerOnATestClock() {
    // spotless:off
    // @start region="test-clock"
    TestClock clock = TestClock.startingNow();   // or new TestClock(anInstant)
    try (AgentAuthServer server = AgentAuthServer.builder().port(0).clock(clock).build().start()) {
      AgentAuthClient client = AgentAuthClient.builder()
          .baseUrl(server.baseUrl()).apiKey(server.apiKey()).build();
      Authorization grant = client.authorizations().create(AuthorizationCreateParams.inline()
          .userId("u_test").agentId("agent_under_test").scope("calendar.read")
          .expiresAt(clock.instant().plus(Duration.ofHours(1)))   // the server's time, not now()
          .build());
      // ... exercise your agent ...
      clock.advance(Duration.ofHours(2));   // nonces expire, windows close, UTC days roll over
      CheckResult late = client.check(CheckParams.of(grant.authorizationId(), "calendar.read"))
          .results().get("calendar.read");
      assertThat(late.reason()).isEqualTo(Reason.AUTHORIZATION_EXPIRED);

      ReceiptVerifier verifier = ReceiptVerifier.builder()
          .keysJson(client.workspaces().keysJson(server.workspaceId()))
          .clock(clock)   // receipts carry the test clock's time: judge them by it
          .build();
      ChainReport chain = new ChainVerifier(verifier)
          .verify(client.receipts().chainJson(grant.authorizationId(), Duration.ofSeconds(5)));
      assertThat(chain.valid()).isTrue();
    }
    // @end region="test-clock"
    // spotless:on
  }
}
