package dev.agentauth.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.model.ApiKey;
import dev.agentauth.model.ApiKeyPage;
import dev.agentauth.model.ApiKeyRole;
import java.time.Instant;
import java.util.List;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.Test;

/**
 * {@code client.apiKeys()}: request shapes, the one POST sent without an Idempotency-Key and never
 * retried, the secret kept out of {@code toString}, and approver resolutions without {@code
 * resolved_by}.
 */
class ApiKeyServiceTest extends MockServerSupport {
  private static final String SECRET = "sk_" + "A".repeat(43);
  private static final String CREATED =
      "{\"key_id\":\"key_01jdq4zk3m0000000000000a\",\"api_key\":\""
          + SECRET
          + "\",\"workspace_id\":\"ws_acme\",\"role\":\"agent\",\"name\":\"mcp-prod\","
          + "\"approver_id\":null,\"prefix\":\"AAAAAAAA\",\"created_at\":\"2026-11-22T10:00:00Z\","
          + "\"expires_at\":\"2026-12-22T10:00:00Z\",\"last_used_at\":null,\"revoked_at\":null}";

  @Test
  void createSendsTheRoleNameAndExpiryWithoutAnIdempotencyKey() throws Exception {
    server.enqueue(json(201, CREATED));

    ApiKey k =
        client
            .apiKeys()
            .create(
                ApiKeyCreateParams.of(ApiKeyRole.AGENT)
                    .withName("mcp-prod")
                    .withExpiresAt(Instant.parse("2026-12-22T10:00:00Z")));

    RecordedRequest r = take();
    assertThat(r.getMethod()).isEqualTo("POST");
    assertThat(r.getTarget()).isEqualTo("/v1/api-keys");
    assertThat(r.getHeaders().get("Idempotency-Key")).isNull();
    assertThat(r.getBody().string(java.nio.charset.StandardCharsets.UTF_8))
        .isEqualTo(
            "{\"role\":\"agent\",\"name\":\"mcp-prod\",\"expires_at\":\"2026-12-22T10:00:00.000Z\"}");
    assertThat(k.apiKey()).isEqualTo(SECRET);
    assertThat(k.role()).isEqualTo(ApiKeyRole.AGENT);
    assertThat(k.expiresAt()).isEqualTo(Instant.parse("2026-12-22T10:00:00Z"));
    assertThat(k.toString()).doesNotContain(SECRET).contains("<redacted>");
    assertThat(k.withoutSecret().apiKey()).isNull();
  }

  @Test
  void createIsNeverRetriedEvenOnA503() throws Exception {
    server.enqueue(problem(503, "unavailable"));
    server.enqueue(json(201, CREATED));

    assertThatThrownBy(() -> client.apiKeys().create(ApiKeyCreateParams.of(ApiKeyRole.AUDITOR)))
        .isInstanceOf(ServerException.class);
    take();
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void anApproverKeyNeedsItsApproverIdAndOnlyIt() throws Exception {
    assertThatThrownBy(() -> ApiKeyCreateParams.of(ApiKeyRole.APPROVER))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("approver(approverId)");
    assertThatThrownBy(() -> ApiKeyCreateParams.approver("alice@example.com"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ApiKeyCreateParams.of(ApiKeyRole.APP).withName(""))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ApiKeyCreateParams.of(ApiKeyRole.APP).withName("n".repeat(101)))
        .isInstanceOf(IllegalArgumentException.class);
    server.enqueue(json(201, CREATED));
    client.apiKeys().create(ApiKeyCreateParams.approver("appr_7"));
    assertThat(take().getBody().string(java.nio.charset.StandardCharsets.UTF_8))
        .isEqualTo("{\"role\":\"approver\",\"approver_id\":\"appr_7\"}");
  }

  @Test
  void anApproverKeyMayBeBoundToTargetsWhichTheRecordShows() throws Exception {
    assertThatThrownBy(() -> ApiKeyCreateParams.of(ApiKeyRole.APP).withTargets(List.of("finance")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("only for approver keys");
    ApiKeyCreateParams approver = ApiKeyCreateParams.approver("appr_7");
    assertThatThrownBy(() -> approver.withTargets(List.of()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> approver.withTargets(java.util.Collections.nCopies(101, "t")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> approver.withTargets(List.of("a\u0007b")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> approver.withTargets(List.of("x".repeat(257))))
        .isInstanceOf(IllegalArgumentException.class);

    server.enqueue(
        json(
            201,
            CREATED
                .replace("\"role\":\"agent\"", "\"role\":\"approver\"")
                .replace(
                    "\"revoked_at\":null}", "\"revoked_at\":null,\"targets\":[\"finance\"]}")));
    ApiKey k =
        client
            .apiKeys()
            .create(approver.withName("fin").withTargets(List.of("finance", "security")));
    assertThat(take().getBody().string(java.nio.charset.StandardCharsets.UTF_8))
        .isEqualTo(
            "{\"role\":\"approver\",\"name\":\"fin\",\"approver_id\":\"appr_7\","
                + "\"targets\":[\"finance\",\"security\"]}");
    assertThat(k.targets()).containsExactly("finance");
    // An unbound key's record has none.
    server.enqueue(json(201, CREATED));
    assertThat(client.apiKeys().create(ApiKeyCreateParams.of(ApiKeyRole.AGENT)).targets()).isNull();
  }

  @Test
  void listCurrentAndRevokeUseTheirPaths() throws Exception {
    server.enqueue(
        json(
            200,
            "{\"api_keys\":["
                + CREATED.replace("\"api_key\":\"" + SECRET + "\",", "")
                + "],\"has_more\":true,\"next_cursor\":\"c2\"}"));
    server.enqueue(json(200, CREATED.replace("\"api_key\":\"" + SECRET + "\",", "")));
    server.enqueue(
        json(
            200,
            CREATED
                .replace("\"api_key\":\"" + SECRET + "\",", "")
                .replace("\"revoked_at\":null", "\"revoked_at\":\"2026-11-22T10:05:00Z\"")));

    ApiKeyPage page = client.apiKeys().list(ListParams.none().withLimit(1));
    ApiKey current = client.apiKeys().current();
    ApiKey revoked = client.apiKeys().revoke("key_01jdq4zk3m0000000000000a");

    assertThat(page.apiKeys()).hasSize(1);
    assertThat(page.apiKeys().get(0).apiKey()).isNull();
    assertThat(page.nextCursor()).isEqualTo("c2");
    assertThat(current.keyId()).isEqualTo("key_01jdq4zk3m0000000000000a");
    assertThat(revoked.revokedAt()).isEqualTo(Instant.parse("2026-11-22T10:05:00Z"));
    RecordedRequest list = take();
    assertThat(list.getTarget()).isEqualTo("/v1/api-keys?limit=1");
    assertThat(take().getTarget()).isEqualTo("/v1/api-keys/current");
    RecordedRequest delete = take();
    assertThat(delete.getMethod()).isEqualTo("DELETE");
    assertThat(delete.getTarget()).isEqualTo("/v1/api-keys/key_01jdq4zk3m0000000000000a");
    assertThat(delete.getHeaders().get("Idempotency-Key")).isNotBlank();
  }

  @Test
  void aForbiddenCallIsAForbiddenExceptionWithTheRoleDetail() {
    server.enqueue(fixture(403, "problem-forbidden.json"));

    assertThatThrownBy(() -> client.apiKeys().list())
        .isInstanceOf(ForbiddenException.class)
        .hasMessageContaining("role is agent")
        .satisfies(e -> assertThat(((ForbiddenException) e).statusCode()).isEqualTo(403));
  }

  @Test
  void anApproverResolvesWithoutResolvedBy() throws Exception {
    server.enqueue(
        json(
            200,
            "{\"escalation_id\":\"esc_1\",\"status\":\"approved\",\"resolved_by\":\"appr_7\","
                + "\"resolved_at\":\"2026-11-22T10:00:00Z\",\"receipt\":{\"receipt_id\":"
                + "\"01JDQ4ZK3M0000000000000000\",\"status\":\"pending\"}}"));

    var resolved = client.escalations().resolve("esc_1", EscalationResolveParams.approve());

    assertThat(take().getBody().string(java.nio.charset.StandardCharsets.UTF_8))
        .isEqualTo("{\"resolution\":\"approved\"}");
    assertThat(resolved.resolvedBy()).isEqualTo("appr_7");
    assertThat(EscalationResolveParams.reject().body().resolvedBy()).isNull();
  }
}
