package dev.agentauth.model;

import static dev.agentauth.model.WireJson.assertRoundTrip;
import static dev.agentauth.model.WireJson.write;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class EscalationJsonTest {

  private static final Instant CREATED = Instant.parse("2026-11-22T10:15:30.123Z");
  private static final Instant EXPIRES = Instant.parse("2026-11-23T10:15:30.123Z");

  @Test
  void resolveRequestOmitsAbsentNote() {
    assertRoundTrip(
        "{\"resolution\":\"approved\",\"resolved_by\":\"mgr_12\"}",
        EscalationResolveRequest.class,
        new EscalationResolveRequest(Resolution.APPROVED, "mgr_12", null));
    assertRoundTrip(
        "{\"resolution\":\"rejected\",\"resolved_by\":\"mgr_12\",\"note\":\"not this week\"}",
        EscalationResolveRequest.class,
        new EscalationResolveRequest(Resolution.REJECTED, "mgr_12", "not this week"));
  }

  @Test
  void firstResolutionCarriesThePendingReceipt() {
    assertRoundTrip(
        """
        {"escalation_id": "esc_1", "status": "approved", "resolved_by": "mgr_12",
         "resolved_at": "2026-11-22T11:00:00.000Z",
         "receipt": {"status": "pending", "receipt_id": "01JDQ8Z6W4Y9V3K2M1N0P8R7S6",
                     "ready_at_estimate": "2026-11-22T11:00:00.500Z",
                     "url": "http://127.0.0.1:8080/v1/receipts/01JDQ8Z6W4Y9V3K2M1N0P8R7S6"}}
        """,
        EscalationResolveResponse.class,
        new EscalationResolveResponse(
            "esc_1",
            EscalationStatus.APPROVED,
            "mgr_12",
            Instant.parse("2026-11-22T11:00:00Z"),
            new PendingReceipt(
                "01JDQ8Z6W4Y9V3K2M1N0P8R7S6",
                Instant.parse("2026-11-22T11:00:00.500Z"),
                "http://127.0.0.1:8080/v1/receipts/01JDQ8Z6W4Y9V3K2M1N0P8R7S6")));
  }

  @Test
  void repeatedResolutionWritesExplicitNullReceipt() {
    EscalationResolveResponse repeated =
        new EscalationResolveResponse(
            "esc_1",
            EscalationStatus.APPROVED,
            "mgr_12",
            Instant.parse("2026-11-22T11:00:00Z"),
            null);
    String json =
        "{\"escalation_id\":\"esc_1\",\"status\":\"approved\",\"resolved_by\":\"mgr_12\","
            + "\"resolved_at\":\"2026-11-22T11:00:00.000Z\",\"receipt\":null}";
    assertThat(write(repeated)).isEqualTo(json);
    assertRoundTrip(json, EscalationResolveResponse.class, repeated);
  }

  @Test
  void pendingEscalationWritesEveryUnsetMemberAsNull() {
    Escalation pending =
        new Escalation(
            "esc_1",
            "auth_1",
            "payments.refund",
            null,
            EscalationStatus.PENDING,
            null,
            CREATED,
            EXPIRES,
            null,
            null,
            null,
            null,
            null);
    String json =
        "{\"escalation_id\":\"esc_1\",\"authorization_id\":\"auth_1\","
            + "\"scope\":\"payments.refund\",\"resource\":null,\"status\":\"pending\","
            + "\"escalation_to\":null,\"created_at\":\"2026-11-22T10:15:30.123Z\","
            + "\"expires_at\":\"2026-11-23T10:15:30.123Z\",\"resolved_by\":null,"
            + "\"resolved_at\":null,\"note\":null,\"approval_expires_at\":null,"
            + "\"approval_consumed_at\":null}";
    assertThat(write(pending)).isEqualTo(json);
    assertRoundTrip(json, Escalation.class, pending);
  }

  @Test
  void consumedApprovalRoundTrips() {
    assertRoundTrip(
        """
        {"escalation_id": "esc_1", "authorization_id": "auth_1", "scope": "payments.refund",
         "resource": "order:77", "status": "approved", "escalation_to": "finance",
         "created_at": "2026-11-22T10:15:30.123Z", "expires_at": "2026-11-23T10:15:30.123Z",
         "resolved_by": "mgr_12", "resolved_at": "2026-11-22T11:00:00.000Z", "note": "ok",
         "approval_expires_at": "2026-11-22T12:00:00.000Z",
         "approval_consumed_at": "2026-11-22T11:05:00.000Z"}
        """,
        Escalation.class,
        new Escalation(
            "esc_1",
            "auth_1",
            "payments.refund",
            "order:77",
            EscalationStatus.APPROVED,
            "finance",
            CREATED,
            EXPIRES,
            "mgr_12",
            Instant.parse("2026-11-22T11:00:00Z"),
            "ok",
            Instant.parse("2026-11-22T12:00:00Z"),
            Instant.parse("2026-11-22T11:05:00Z")));
  }

  @Test
  void escalationPageRoundTrips() {
    assertRoundTrip(
        "{\"escalations\":[],\"has_more\":false,\"next_cursor\":null}",
        EscalationPage.class,
        new EscalationPage(List.of(), false, null));
  }
}
