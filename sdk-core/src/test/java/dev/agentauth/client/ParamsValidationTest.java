package dev.agentauth.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.model.ScopeEntry;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Mistakes the client can see are rejected before any network call. */
class ParamsValidationTest extends MockServerSupport {
  private static final Instant LATER = Instant.parse("2026-12-22T10:00:00Z");

  @Test
  void checkNeedsAtLeastOneScope() {
    assertThatThrownBy(() -> CheckParams.builder().authorizationId("a").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("expected at least one scope in scopes, found none");
  }

  @Test
  void checkRejectsDuplicateScopes() {
    assertThatThrownBy(() -> CheckParams.of("a", "email.send", "email.send"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("expected distinct scopes in scopes, found \"email.send\" twice");
  }

  @Test
  void checkRejectsBlankScopeAndMissingAuthorization() {
    assertThatThrownBy(() -> CheckParams.of("a", " "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("scopes[0]");
    assertThatThrownBy(() -> CheckParams.of(null, "s"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("expected authorization_id, found none");
  }

  @Test
  void checkRejectsMoreThanTwentyScopes() {
    String[] scopes = new String[21];
    for (int i = 0; i < scopes.length; i++) {
      scopes[i] = "s" + i;
    }
    assertThatThrownBy(() -> CheckParams.of("a", scopes))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("expected at most 20 scopes per check, found 21");
  }

  @Test
  void costEstimateNeedsExactlyOneScope() {
    assertThatThrownBy(
            () ->
                CheckParams.builder()
                    .authorizationId("a")
                    .scopes("x", "y")
                    .estimatedCostMicros(10)
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("expected exactly one scope on a check with estimated_cost_micros, found 2");
  }

  @Test
  void inlineAuthorizationNeedsExpiresAt() {
    assertThatThrownBy(
            () ->
                AuthorizationCreateParams.inline()
                    .userId("u_1")
                    .agentId("bot")
                    .scope("email.send")
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("expected expires_at: authorizations are never perpetual, found none");
  }

  @Test
  void inlineAuthorizationNeedsDistinctNonEmptyScopes() {
    assertThatThrownBy(
            () ->
                AuthorizationCreateParams.inline()
                    .userId("u_1")
                    .agentId("bot")
                    .expiresAt(LATER)
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("expected at least one scope in scopes, found none");
    assertThatThrownBy(
            () ->
                AuthorizationCreateParams.inline()
                    .userId("u_1")
                    .agentId("bot")
                    .scope("a")
                    .scope(ScopeEntry.of("a"))
                    .expiresAt(LATER)
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("expected distinct scope names in scopes, found \"a\" twice");
  }

  @Test
  void requiresConfirmForMustNameScopesOfTheAuthorization() {
    assertThatThrownBy(
            () ->
                AuthorizationCreateParams.inline()
                    .userId("u_1")
                    .agentId("bot")
                    .scope("email.send")
                    .requiresConfirmFor("email.delete")
                    .expiresAt(LATER)
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "expected requires_confirm_for to name scopes of [email.send], found \"email.delete\"");
  }

  @Test
  void rawEmailAsUserIdIsRejectedWithAHint() {
    assertThatThrownBy(
            () ->
                AuthorizationCreateParams.inline()
                    .userId("ada@example.com")
                    .agentId("bot")
                    .scope("s")
                    .expiresAt(LATER)
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("raw e-mail address")
        .hasMessageContaining("UserIds.keyedHash");
    assertThatThrownBy(() -> EscalationResolveParams.approve("+4915112345678"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("phone number");
  }

  @Test
  void bundleShapeCannotCarryAgentOrScopesAndNeedsABundleId() {
    AuthorizationCreateParams p =
        AuthorizationCreateParams.fromBundle("support-bot-default").userId("u_1").build();
    assertThat(p.body().agentId()).isNull();
    assertThat(p.body().scopes()).isNull();
    assertThat(p.body().expiresAt()).isNull();

    assertThatThrownBy(() -> AuthorizationCreateParams.fromBundle(" ").userId("u_1").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bundle_id");
  }

  @Test
  void bundleNeedsAgentAndScopesAndAnIdToCreate() {
    assertThatThrownBy(() -> BundleParams.builder().agentId("bot").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("expected at least one scope in scopes, found none");
    BundleParams noId = BundleParams.builder().agentId("bot").scope("s").build();
    assertThatThrownBy(() -> client.bundles().create(noId))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("expected the bundle id to create, found none");
    BundleParams otherId = BundleParams.builder().id("x").agentId("bot").scope("s").build();
    assertThatThrownBy(() -> client.bundles().edit("y", otherId))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("equal to the edited id \"y\", found \"x\"");
  }

  @Test
  void confirmationTtlMustBeOneTo300Seconds() {
    assertThatThrownBy(() -> client.confirmations().approve("n", Duration.ofSeconds(301)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("expected a confirmation ttl of 1-300 seconds, found: PT5M1S");
    assertThatThrownBy(() -> client.confirmations().approve("n", Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void idsInPathsMustNotBeBlank() {
    assertThatThrownBy(() -> client.authorizations().get(""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("expected authorization id to be a non-blank string, found: \"\"");
    assertThatThrownBy(() -> client.async().receipts().get(null))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void listLimitsAreOneToHundred() {
    assertThatThrownBy(() -> ReceiptListParams.builder().limit(101))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("expected limit in 1-100, found: 101");
    assertThatThrownBy(() -> ListParams.none().withLimit(0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () -> ReceiptListParams.builder().from(LATER).to(LATER.minusSeconds(1)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("expected from before to");
  }

  @Test
  void idempotencyKeyMustBePrintableAsciiUpTo255() {
    assertThatThrownBy(() -> RequestOptions.builder().idempotencyKey(""))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () ->
                RequestOptions.builder()
                    .idempotencyKey(String.join("", Collections.nCopies(256, "k"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("expected an idempotency key of 1-255 characters, found length 256");
    assertThatThrownBy(() -> RequestOptions.builder().idempotencyKey("a b"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("U+0020 at index 1");
  }

  @Test
  void rejectedParamsNeverReachTheNetwork() {
    assertThatThrownBy(() -> client.check(CheckParams.of("a", new String[0])))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> client.tombstones().create(" "))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(server.getRequestCount()).isZero();
  }

  @Test
  void paramsBuildersCopyTheirInput() {
    List<String> scopes = new java.util.ArrayList<>(List.of("a"));
    CheckParams.Builder b = CheckParams.builder().authorizationId("x").scopes(scopes);
    CheckParams p = b.build();
    scopes.add("b");
    b.scope("c");

    assertThat(p.scopes()).containsExactly("a");
    assertThatThrownBy(() -> p.scopes().add("z")).isInstanceOf(UnsupportedOperationException.class);
  }
}
