package dev.agentauth.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.model.BundleRequest;
import dev.agentauth.model.CheckRequest;
import dev.agentauth.model.CreateAuthorizationRequest;
import dev.agentauth.model.ScopeConstraints;
import dev.agentauth.model.ScopeEntry;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The {@code *Params} builders are the one way to build a request body: each member given lands in
 * the wire record, and each member not given stays absent.
 */
class ParamsBodyTest {
  private static final Instant EXPIRES = Instant.parse("2026-12-01T00:00:00Z");

  @Test
  void checkParamsSetEveryMemberOfTheBody() {
    CheckParams p =
        CheckParams.builder()
            .authorizationId("a")
            .scopes(List.of("s"))
            .resource("r")
            .sessionId("sess")
            .estimatedCostMicros(3L)
            .initiatedBy("user")
            .build();

    assertThat(p.body())
        .isEqualTo(
            new CheckRequest("a", List.of("s"), "r", "sess", 3L, Map.of("initiated_by", "user")));
  }

  @Test
  void checkParamsLeaveMembersNotGivenAbsent() {
    assertThat(CheckParams.of("auth_1", "x").body())
        .isEqualTo(new CheckRequest("auth_1", List.of("x"), null, null, null, null));
  }

  @Test
  void checkParamsBuilderDoesNotShareStateWithBuiltParams() {
    CheckParams.Builder builder =
        CheckParams.builder().authorizationId("auth").scopes("a").putContext("k", 1);
    CheckParams first = builder.build();
    CheckParams second = builder.scopes("b").putContext("k2", 2).build();

    assertThat(first.body().scopes()).containsExactly("a");
    assertThat(first.body().context()).containsOnlyKeys("k");
    assertThat(second.body().scopes()).containsExactly("b");
    assertThat(second.body().context()).containsOnlyKeys("k", "k2");
  }

  @Test
  void inlineAuthorizationParamsSetEveryMemberOfTheBodyButBundleId() {
    AuthorizationCreateParams p =
        AuthorizationCreateParams.inline()
            .userId("u")
            .agentId("a")
            .scope("s1")
            .scope("s2", new ScopeConstraints(1L, null, null))
            .requiresConfirmFor("s1")
            .requiresEscalationFor("s2")
            .escalationTarget("s2", "security")
            .expiresAt(EXPIRES)
            .budgetLimitMicros(7L)
            .putMetadata("k", "v")
            .build();

    assertThat(p.body())
        .isEqualTo(
            new CreateAuthorizationRequest(
                "u",
                "a",
                null,
                List.of(
                    ScopeEntry.of("s1"),
                    new ScopeEntry("s2", new ScopeConstraints(1L, null, null))),
                List.of("s1"),
                List.of("s2"),
                Map.of("s2", "security"),
                EXPIRES,
                7L,
                Map.of("k", "v")));
  }

  @Test
  void bundleAuthorizationParamsSetBundleIdAndLeaveAgentAndScopesAbsent() {
    AuthorizationCreateParams p =
        AuthorizationCreateParams.fromBundle("support-bot").userId("usr_1").build();

    assertThat(p.body())
        .isEqualTo(
            new CreateAuthorizationRequest(
                "usr_1", null, "support-bot", null, null, null, null, null, null, null));
  }

  @Test
  void bundleParamsSetEveryMemberOfTheBody() {
    BundleParams p =
        BundleParams.builder()
            .id("support-bot")
            .agentId("agent_support")
            .scope("tickets.read")
            .scope("tickets.close", new ScopeConstraints(null, "ticket:*", null))
            .requiresConfirmFor("tickets.close")
            .requiresEscalationFor("tickets.read")
            .escalationTarget("tickets.read", "security")
            .defaultExpiryDays(30)
            .description("Support agent")
            .build();

    assertThat(p.body())
        .isEqualTo(
            new BundleRequest(
                "support-bot",
                "agent_support",
                List.of(
                    ScopeEntry.of("tickets.read"),
                    new ScopeEntry("tickets.close", new ScopeConstraints(null, "ticket:*", null))),
                List.of("tickets.close"),
                List.of("tickets.read"),
                Map.of("tickets.read", "security"),
                30L,
                "Support agent"));
  }

  @Test
  void bundleParamsForAnEditLeaveTheIdAndOtherMembersNotGivenAbsent() {
    BundleParams p = BundleParams.builder().agentId("agent_support").scope("tickets.read").build();

    assertThat(p.id()).isNull();
    assertThat(p.body())
        .isEqualTo(
            new BundleRequest(
                null,
                "agent_support",
                List.of(ScopeEntry.of("tickets.read")),
                null,
                null,
                null,
                null,
                null));
  }
}
