package dev.agentauth.client.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.ApiKeyCreateParams;
import dev.agentauth.client.AuthenticationException;
import dev.agentauth.client.CheckParams;
import dev.agentauth.client.ConflictException;
import dev.agentauth.client.EscalationResolveParams;
import dev.agentauth.client.ForbiddenException;
import dev.agentauth.client.ListParams;
import dev.agentauth.model.ApiKey;
import dev.agentauth.model.ApiKeyRole;
import dev.agentauth.model.Authorization;
import dev.agentauth.model.CheckResult;
import dev.agentauth.model.EscalationResolveResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code client.apiKeys()} against the reference server: keys with least-privilege roles, what each
 * may do through the client, {@link ForbiddenException} with the role's detail, revocation, and an
 * approver resolving under its own id.
 */
class ClientApiKeysIT {
  private ItServer it;

  @BeforeEach
  void start() {
    it = ItServer.start();
  }

  @AfterEach
  void stop() {
    it.close();
  }

  private AgentAuthClient as(ApiKey key) {
    return it.clientBuilder().apiKey(key.apiKey()).build();
  }

  @Test
  void anAgentKeyChecksButCannotGrantAndSaysWhy() {
    ApiKey agentKey =
        it.client.apiKeys().create(ApiKeyCreateParams.of(ApiKeyRole.AGENT).withName("mcp-prod"));
    assertThat(agentKey.apiKey()).startsWith("sk_");
    assertThat(agentKey.role()).isEqualTo(ApiKeyRole.AGENT);
    assertThat(agentKey.name()).isEqualTo("mcp-prod");
    Authorization a = it.authorize("email.send");

    AgentAuthClient agent = as(agentKey);
    CheckResult r =
        agent
            .check(
                CheckParams.builder()
                    .authorizationId(a.authorizationId())
                    .scope("email.send")
                    .build())
            .results()
            .get("email.send");
    assertThat(r.isAllowed()).isTrue();
    ForbiddenException e =
        catchThrowableOfType(
            ForbiddenException.class,
            () -> agent.authorizations().create(it.inline("x.read").build()));
    assertThat(e).isNotNull();
    assertThat(e.statusCode()).isEqualTo(403);
    assertThat(e.code()).isEqualTo("forbidden");
    assertThat(e.getMessage()).contains("role is agent").contains("POST /v1/authorizations");
    assertThat(agent.apiKeys().current().role()).isEqualTo(ApiKeyRole.AGENT);
    assertThatThrownBy(() -> agent.apiKeys().list()).isInstanceOf(ForbiddenException.class);
  }

  @Test
  void keysAreListedAndRevokedAndARevokedKeyIsRefused() {
    List<String> made = new ArrayList<>();
    for (ApiKeyRole role : List.of(ApiKeyRole.APP, ApiKeyRole.AUDITOR, ApiKeyRole.FULL)) {
      made.add(it.client.apiKeys().create(ApiKeyCreateParams.of(role)).keyId());
    }
    List<String> listed = new ArrayList<>();
    it.client
        .apiKeys()
        .listAutoPaging(ListParams.none().withLimit(2))
        .forEach(
            k -> {
              assertThat(k.apiKey()).isNull();
              listed.add(k.keyId());
            });
    assertThat(listed).hasSize(4).endsWith(made.toArray(String[]::new));

    ApiKey auditorKey = it.client.apiKeys().create(ApiKeyCreateParams.of(ApiKeyRole.AUDITOR));
    AgentAuthClient auditor = as(auditorKey);
    assertThat(auditor.receipts().list().receipts()).isEmpty();
    ApiKey revoked = it.client.apiKeys().revoke(auditorKey.keyId());
    assertThat(revoked.revokedAt()).isNotNull();
    assertThatThrownBy(() -> auditor.receipts().list()).isInstanceOf(AuthenticationException.class);
    ConflictException again =
        catchThrowableOfType(
            ConflictException.class, () -> it.client.apiKeys().revoke(auditorKey.keyId()));
    assertThat(again.code()).isEqualTo("already_revoked");
  }

  @Test
  void anApproverResolvesWithoutNamingItself() {
    ApiKey approverKey = it.client.apiKeys().create(ApiKeyCreateParams.approver("appr_it"));
    Authorization a =
        it.client
            .authorizations()
            .create(it.inline("pay.send").requiresEscalationFor("pay.send").build());
    String escalationId =
        it.client
            .check(
                CheckParams.builder()
                    .authorizationId(a.authorizationId())
                    .scope("pay.send")
                    .build())
            .results()
            .get("pay.send")
            .escalationId();
    AgentAuthClient approver = as(approverKey);
    assertThatThrownBy(
            () ->
                approver
                    .escalations()
                    .resolve(escalationId, EscalationResolveParams.approve("mgr_1")))
        .isInstanceOf(ForbiddenException.class)
        .hasMessageContaining("appr_it");
    EscalationResolveResponse resolved =
        approver.escalations().resolve(escalationId, EscalationResolveParams.approve());
    assertThat(resolved.resolvedBy()).isEqualTo("appr_it");
  }
}
