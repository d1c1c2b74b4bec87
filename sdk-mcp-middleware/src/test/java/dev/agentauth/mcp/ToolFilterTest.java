package dev.agentauth.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.Test;

/**
 * The tools/list filter (decisions §17): visibility from {@code GET /v1/authorizations/{id}},
 * cached, never from a check; shown when it cannot be decided.
 */
class ToolFilterTest extends GuardTestSupport {

  private static final McpTransportContext ALICE =
      McpTransportContext.create(Map.of("user_id", "alice"));

  private AgentAuthToolGuard.Builder contextGuard() {
    return guard().userIdSource(UserIdSource.transportContext("user_id"));
  }

  private static MockResponse authorization(String status, String... scopes) {
    StringBuilder s = new StringBuilder();
    for (String scope : scopes) {
      s.append(s.length() == 0 ? "" : ",").append("{\"name\":\"").append(scope).append("\"}");
    }
    return json(
        200,
        """
        {"authorization_id":"auth_1","user_id":"alice","agent_id":"bot","bundle_id":null,
         "scopes":[%s],"requires_confirm_for":[],"requires_escalation_for":[],
         "escalation_targets":{},"expires_at":"2099-01-01T00:00:00.000Z",
         "budget_limit_micros":null,"budget_spent_micros":0,
         "created_at":"2026-01-01T00:00:00.000Z","revoked_at":null,"metadata":{},
         "status":"%s"}
        """
            .formatted(s, status));
  }

  private static Tool named(String name) {
    return tool(name);
  }

  @Test
  void aToolIsShownWhenTheCallersActiveAuthorizationIncludesItsScope() throws Exception {
    server.enqueue(authorization("active", "read_inbox"));
    AgentAuthToolFilter filter = contextGuard().build().toolFilter();

    assertThat(filter.isVisible(ALICE, named("read_inbox"))).isTrue();
    assertThat(filter.isVisible(ALICE, named("delete_mailbox"))).isFalse();
    RecordedRequest r = server.takeRequest();
    assertThat(r.getMethod()).isEqualTo("GET");
    assertThat(r.getUrl().encodedPath()).isEqualTo("/v1/authorizations/auth_1");
    // One lookup for both tools (cached), and never a check: listing creates no receipt.
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void theScopeMapperDecidesWhichScopeAToolNeeds() {
    server.enqueue(authorization("active", "mcp.read_inbox"));
    AgentAuthToolFilter filter = contextGuard().scopeMapper(n -> "mcp." + n).build().toolFilter();

    assertThat(filter.isVisible(ALICE, named("read_inbox"))).isTrue();
  }

  @Test
  void revokedAndExpiredAuthorizationsHideEveryTool() {
    server.enqueue(authorization("revoked", "read_inbox"));
    server.enqueue(authorization("expired", "read_inbox"));
    AgentAuthToolFilter filter =
        contextGuard().visibilityCacheTtl(Duration.ZERO).build().toolFilter();

    assertThat(filter.isVisible(ALICE, named("read_inbox"))).isFalse();
    assertThat(filter.isVisible(ALICE, named("read_inbox"))).isFalse();
    assertThat(server.getRequestCount()).isEqualTo(2);
  }

  @Test
  void noUserOrNoAuthorizationHidesTheToolWithoutAskingTheService() {
    AgentAuthToolFilter noGrant =
        contextGuard()
            .authorizationResolver((user, tool, args) -> Optional.empty())
            .build()
            .toolFilter();
    AgentAuthToolFilter anyone = contextGuard().build().toolFilter();

    assertThat(anyone.isVisible(McpTransportContext.EMPTY, named("read_inbox"))).isFalse();
    assertThat(noGrant.isVisible(ALICE, named("read_inbox"))).isFalse();
    assertThat(server.getRequestCount()).isZero();
  }

  @Test
  void whenVisibilityCannotBeDecidedTheToolIsShownAndTheFailureIsNotCached() {
    server.enqueue(problem(503, "unavailable"));
    server.enqueue(authorization("active", "other_scope"));
    AgentAuthToolFilter filter = contextGuard().build().toolFilter();

    assertThat(filter.isVisible(ALICE, named("read_inbox"))).isTrue();
    assertThat(filter.isVisible(ALICE, named("read_inbox"))).isFalse();
    AgentAuthToolFilter failingResolver =
        contextGuard()
            .authorizationResolver(
                (user, tool, args) -> {
                  throw new IllegalStateException("directory down");
                })
            .build()
            .toolFilter();
    assertThat(failingResolver.isVisible(ALICE, named("read_inbox"))).isTrue();
  }

  @Test
  void theAsyncFormDecidesTheSameWithoutBlockingAndUsesTheAsyncResolver() {
    server.enqueue(authorization("active", "read_inbox"));
    AgentAuthToolFilter filter =
        contextGuard()
            .asyncAuthorizationResolver(
                (user, tool, args) ->
                    java.util.concurrent.CompletableFuture.completedFuture(Optional.of("auth_1")))
            .build()
            .toolFilter();

    assertThat(filter.async().isVisible(ALICE, named("read_inbox")).block()).isTrue();
    assertThat(filter.async().isVisible(ALICE, named("wire_money")).block()).isFalse();
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void aGuardReadingTheUserIdFromAnArgumentCannotFilterListings() {
    AgentAuthToolGuard guard = guard().build();

    assertThatThrownBy(guard::toolFilter)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("transport context");
  }

  @Test
  void aNegativeCacheTtlIsRefused() {
    assertThatThrownBy(() -> contextGuard().visibilityCacheTtl(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
