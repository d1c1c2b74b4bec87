package dev.agentauth.model;

import static dev.agentauth.model.WireJson.assertRoundTrip;
import static dev.agentauth.model.WireJson.write;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class ConfirmationJsonTest {

  @Test
  void requestOmitsAbsentTtl() {
    assertRoundTrip(
        "{\"approved\":true}", ConfirmationRequest.class, new ConfirmationRequest(true, null));
    assertRoundTrip(
        "{\"approved\":false,\"ttl_seconds\":300}",
        ConfirmationRequest.class,
        new ConfirmationRequest(false, 300L));
  }

  @Test
  void requestCarriesViaWhenGivenAndKeepsUnknownOnes() {
    assertRoundTrip(
        "{\"approved\":true,\"via\":\"mcp_elicitation\"}",
        ConfirmationRequest.class,
        new ConfirmationRequest(true, null, ConfirmationVia.MCP_ELICITATION));
    ConfirmationRequest future =
        WireJson.readStrict("{\"approved\":false,\"via\":\"pager\"}", ConfirmationRequest.class);
    assertThat(future.via().isKnown()).isFalse();
    assertThat(future.via().value()).isEqualTo("pager");
    assertThat(ConfirmationVia.of("console")).isSameAs(ConfirmationVia.CONSOLE);
    assertThat(ApiKeyRole.of("tool_server")).isSameAs(ApiKeyRole.TOOL_SERVER);
  }

  @Test
  void requestWithoutApprovedReadsAsNullSoTheServerCanRejectIt() {
    assertThat(WireJson.readStrict("{}", ConfirmationRequest.class).approved()).isNull();
  }

  @Test
  void approvalCarriesConfirmationAuthorizationAndExpiry() {
    assertRoundTrip(
        "{\"decision\":\"approved\",\"authorization_id\":\"cauth_1\","
            + "\"expires_at\":\"2026-11-22T10:16:30.123Z\"}",
        ConfirmationResolution.class,
        new ConfirmationResolution(
            ConfirmationDecision.APPROVED, "cauth_1", Instant.parse("2026-11-22T10:16:30.123Z")));
  }

  @Test
  void declineWritesOnlyTheDecision() {
    ConfirmationResolution declined =
        new ConfirmationResolution(ConfirmationDecision.DENIED_BY_USER, null, null);
    assertThat(write(declined)).isEqualTo("{\"decision\":\"denied_by_user\"}");
    assertRoundTrip("{\"decision\":\"denied_by_user\"}", ConfirmationResolution.class, declined);
  }
}
