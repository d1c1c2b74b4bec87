package dev.agentauth.model;

import static dev.agentauth.model.WireJson.assertRoundTrip;
import static dev.agentauth.model.WireJson.ordered;
import static dev.agentauth.model.WireJson.read;
import static dev.agentauth.model.WireJson.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CheckJsonTest {

  private static final PendingReceipt PENDING =
      new PendingReceipt(
          "01JDQ8Z6W4Y9V3K2M1N0P8R7S6",
          Instant.parse("2026-11-22T10:15:30.623Z"),
          "http://127.0.0.1:8080/v1/receipts/01JDQ8Z6W4Y9V3K2M1N0P8R7S6");
  private static final String PENDING_JSON =
      "{\"status\":\"pending\",\"receipt_id\":\"01JDQ8Z6W4Y9V3K2M1N0P8R7S6\","
          + "\"ready_at_estimate\":\"2026-11-22T10:15:30.623Z\","
          + "\"url\":\"http://127.0.0.1:8080/v1/receipts/01JDQ8Z6W4Y9V3K2M1N0P8R7S6\"}";

  @Test
  void checkRequestRoundTrips() {
    assertRoundTrip(
        """
        {"authorization_id": "auth_1", "scopes": ["email.send", "email.read"],
         "resource": "mailbox:42", "session_id": "sess_9", "estimated_cost_micros": 1500,
         "context": {"initiated_by": "user", "trace": {"depth": 2}}}
        """,
        CheckRequest.class,
        new CheckRequest(
            "auth_1",
            List.of("email.send", "email.read"),
            "mailbox:42",
            "sess_9",
            1500L,
            ordered("initiated_by", "user", "trace", Map.of("depth", 2))));
  }

  @Test
  void checkRequestOmitsAbsentMembers() {
    CheckRequest request = new CheckRequest("auth_1", List.of("x"), null, null, null, null);
    assertThat(write(request)).isEqualTo("{\"authorization_id\":\"auth_1\",\"scopes\":[\"x\"]}");
  }

  @Test
  void allowResultOmitsEveryAbsentMember() {
    CheckResult allow =
        new CheckResult(
            Decision.ALLOW,
            Reason.AUTHORIZATION_GRANTED_SCOPE_ACTIVE,
            PENDING,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            null);
    String json =
        "{\"decision\":\"allow\",\"reason\":\"authorization_granted_scope_active\",\"receipt\":"
            + PENDING_JSON
            + "}";
    assertThat(write(allow)).isEqualTo(json);
    assertRoundTrip(json, CheckResult.class, allow);
    assertThat(allow.isAllowed()).isTrue();
  }

  @Test
  void confirmResultCarriesNonceExpiryAndHint() {
    assertRoundTrip(
        "{\"decision\":\"confirm\",\"reason\":\"scope_requires_user_confirmation\",\"receipt\":"
            + PENDING_JSON
            + ",\"confirm_nonce\":\"cn_1\",\"confirm_expires_at\":\"2026-11-22T10:20:30.123Z\","
            + "\"confirm_prompt_hint\":\"Send e-mail\"}",
        CheckResult.class,
        new CheckResult(
            Decision.CONFIRM,
            Reason.SCOPE_REQUIRES_USER_CONFIRMATION,
            PENDING,
            null,
            "cn_1",
            Instant.parse("2026-11-22T10:20:30.123Z"),
            "Send e-mail",
            null,
            null,
            null,
            null,
            null,
            null));
  }

  @Test
  void escalateResultWithTargetRoundTrips() {
    Instant expires = Instant.parse("2026-11-23T10:15:30.123Z");
    CheckResult result =
        assertRoundTrip(
            "{\"decision\":\"escalate\",\"reason\":\"escalation_required\",\"receipt\":"
                + PENDING_JSON
                + ",\"escalation\":{\"escalation_id\":\"esc_1\",\"status\":\"pending\","
                + "\"escalation_to\":\"manager\",\"expires_at\":\"2026-11-23T10:15:30.123Z\"},"
                + "\"escalation_id\":\"esc_1\",\"escalation_to\":\"manager\","
                + "\"escalation_expires_at\":\"2026-11-23T10:15:30.123Z\"}",
            CheckResult.class,
            new CheckResult(
                Decision.ESCALATE,
                Reason.ESCALATION_REQUIRED,
                PENDING,
                null,
                null,
                null,
                null,
                new EscalationRef("esc_1", EscalationStatus.PENDING, "manager", expires),
                "esc_1",
                "manager",
                expires,
                null,
                null));
    assertThat(result.isAllowed()).isFalse();
  }

  @Test
  void escalateResultWithoutTargetOmitsEscalationToButEscalationObjectWritesNull() {
    Instant expires = Instant.parse("2026-11-23T10:15:30.123Z");
    CheckResult result =
        new CheckResult(
            Decision.ESCALATE,
            Reason.ESCALATION_REQUIRED,
            PENDING,
            null,
            null,
            null,
            null,
            new EscalationRef("esc_1", EscalationStatus.PENDING, null, expires),
            "esc_1",
            null,
            expires,
            null,
            null);
    String json =
        "{\"decision\":\"escalate\",\"reason\":\"escalation_required\",\"receipt\":"
            + PENDING_JSON
            + ",\"escalation\":{\"escalation_id\":\"esc_1\",\"status\":\"pending\","
            + "\"escalation_to\":null,\"expires_at\":\"2026-11-23T10:15:30.123Z\"},"
            + "\"escalation_id\":\"esc_1\",\"escalation_expires_at\":\"2026-11-23T10:15:30.123Z\"}";
    assertThat(write(result)).isEqualTo(json);
    assertRoundTrip(json, CheckResult.class, result);
  }

  @Test
  void escalationRefWritesNullTarget() {
    assertThat(
            write(
                new EscalationRef(
                    "esc_1",
                    EscalationStatus.PENDING,
                    null,
                    Instant.parse("2026-11-23T10:15:30Z"))))
        .isEqualTo(
            "{\"escalation_id\":\"esc_1\",\"status\":\"pending\",\"escalation_to\":null,"
                + "\"expires_at\":\"2026-11-23T10:15:30.000Z\"}");
  }

  @Test
  void budgetedDenyCarriesTheBudgetBlock() {
    assertRoundTrip(
        "{\"decision\":\"deny\",\"reason\":\"budget_exceeded\",\"receipt\":"
            + PENDING_JSON
            + ",\"budget\":{\"limit_micros\":1000,\"spent_micros\":900,"
            + "\"estimated_cost_micros\":200,\"spent_after_micros\":900}}",
        CheckResult.class,
        new CheckResult(
            Decision.DENY,
            Reason.BUDGET_EXCEEDED,
            PENDING,
            new BudgetBlock(1000, 900, 200, 900),
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            null));
  }

  @Test
  void fallbackResultCarriesMarkersAndNoReceipt() {
    CheckResult fallback =
        new CheckResult(
            Decision.DENY,
            Reason.FALLBACK_CLOSED_TIMEOUT,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            true,
            FallbackMode.FAIL_CLOSED);
    assertThat(write(fallback))
        .isEqualTo(
            "{\"decision\":\"deny\",\"reason\":\"fallback_closed_timeout\",\"fallback\":true,"
                + "\"fallback_mode\":\"fail_closed\"}");
  }

  @Test
  void resultRequiresDecisionAndReason() {
    assertThatThrownBy(
            () ->
                new CheckResult(
                    null,
                    Reason.BUDGET_EXCEEDED,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("decision");
    assertThatThrownBy(() -> read("{\"decision\":\"deny\"}", CheckResult.class))
        .hasRootCauseInstanceOf(NullPointerException.class)
        .hasMessageContaining("reason");
    assertThatThrownBy(() -> WireJson.CLIENT.readValue("{\"reason\":\"x\"}", CheckResult.class))
        .isInstanceOf(ValueInstantiationException.class);
  }

  @Test
  void responseKeepsResultsInServerOrder() {
    String json =
        "{\"authorization_id\":\"auth_1\",\"user_id\":\"usr_1\",\"agent_id\":\"agent_1\","
            + "\"authorization_expires_at\":\"2026-12-01T00:00:00.000Z\","
            + "\"policy_version\":\"2026-11-21.1\",\"results\":{"
            + "\"z.last\":{\"decision\":\"deny\",\"reason\":\"scope_not_authorized\",\"receipt\":"
            + PENDING_JSON
            + "},\"a.first\":{\"decision\":\"allow\","
            + "\"reason\":\"authorization_granted_scope_active\",\"receipt\":"
            + PENDING_JSON
            + "}}}";
    Map<String, CheckResult> results = new LinkedHashMap<>();
    results.put("z.last", result(Decision.DENY, Reason.SCOPE_NOT_AUTHORIZED));
    results.put("a.first", result(Decision.ALLOW, Reason.AUTHORIZATION_GRANTED_SCOPE_ACTIVE));
    CheckResponse response =
        assertRoundTrip(
            json,
            CheckResponse.class,
            new CheckResponse(
                "auth_1",
                "usr_1",
                "agent_1",
                Instant.parse("2026-12-01T00:00:00Z"),
                "2026-11-21.1",
                results));
    assertThat(response.results().keySet()).containsExactly("z.last", "a.first");
  }

  @Test
  void notFoundResponseWritesTopLevelNulls() {
    CheckResponse response =
        new CheckResponse(
            "auth_missing",
            null,
            null,
            null,
            "2026-11-21.1",
            Map.of("x", result(Decision.DENY, Reason.AUTHORIZATION_NOT_FOUND)));
    String json =
        "{\"authorization_id\":\"auth_missing\",\"user_id\":null,\"agent_id\":null,"
            + "\"authorization_expires_at\":null,\"policy_version\":\"2026-11-21.1\","
            + "\"results\":{\"x\":{\"decision\":\"deny\",\"reason\":\"authorization_not_found\","
            + "\"receipt\":"
            + PENDING_JSON
            + "}}}";
    assertThat(write(response)).isEqualTo(json);
    assertRoundTrip(json, CheckResponse.class, response);
  }

  private static CheckResult result(Decision decision, Reason reason) {
    return new CheckResult(
        decision, reason, PENDING, null, null, null, null, null, null, null, null, null, null);
  }
}
