package dev.agentauth.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.client.AuthorizationCreateParams;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class ScopeConstraintsBuilderTest {
  private final ObjectMapper json = AgentAuthJson.newObjectMapper();

  @Test
  void membersAreNamedAndUnsetOnesAreAbsentOnTheWire() throws Exception {
    ScopeConstraints c = ScopeConstraints.builder().maxPerDay(100).resourcePattern("crm:*").build();

    assertThat(c).isEqualTo(new ScopeConstraints(100L, "crm:*", null));
    assertThat(json.writeValueAsString(c))
        .isEqualTo("{\"max_per_day\":100,\"resource_pattern\":\"crm:*\"}");
    assertThat(json.writeValueAsString(ScopeConstraints.builder().build())).isEqualTo("{}");
  }

  @Test
  void allowedInitiatorsAreCopied() throws Exception {
    List<String> initiators = new java.util.ArrayList<>(List.of("user"));
    ScopeConstraints c = ScopeConstraints.builder().allowedInitiators(initiators).build();
    initiators.add("agent");

    assertThat(c.allowedInitiators()).containsExactly("user");
    assertThat(
            json.writeValueAsString(
                ScopeConstraints.builder().allowedInitiators("user", "cron").build()))
        .isEqualTo("{\"allowed_initiators\":[\"user\",\"cron\"]}");
  }

  @Test
  void impossibleValuesAreRefusedAtOnce() {
    assertThatThrownBy(() -> ScopeConstraints.builder().maxPerDay(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxPerDay must be at least 1, was 0");
    assertThatThrownBy(() -> ScopeConstraints.builder().resourcePattern(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("pattern");
    assertThatThrownBy(() -> ScopeConstraints.builder().allowedInitiators("user", null))
        .isInstanceOf(NullPointerException.class);
  }

  @Test
  void createParamsTakeANamedScopeWithConstraints() {
    ScopeConstraints crm = ScopeConstraints.builder().maxPerDay(3).build();
    var params =
        AuthorizationCreateParams.inline()
            .userId("u_1")
            .agentId("a")
            .scope("crm.read", crm)
            .expiresAt(Instant.parse("2026-12-01T00:00:00Z"))
            .build();

    assertThat(params.body().scopes()).containsExactly(new ScopeEntry("crm.read", crm));
    assertThat(ScopeEntry.of("crm.read", crm)).isEqualTo(new ScopeEntry("crm.read", crm));
  }
}
