package dev.agentauth.model;

import static dev.agentauth.model.WireJson.assertRoundTrip;
import static dev.agentauth.model.WireJson.read;
import static dev.agentauth.model.WireJson.write;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AuthorizationJsonTest {

  private static final Instant CREATED = Instant.parse("2026-11-22T10:15:30.123Z");
  private static final Instant EXPIRES = Instant.parse("2026-12-01T00:00:00Z");
  private static final PendingReceipt PENDING =
      new PendingReceipt(
          "01JDQ8Z6W4Y9V3K2M1N0P8R7S6",
          Instant.parse("2026-11-22T10:15:30.623Z"),
          "http://127.0.0.1:8080/v1/receipts/01JDQ8Z6W4Y9V3K2M1N0P8R7S6");

  @Test
  void inlineCreateRequestRoundTrips() {
    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put("ticket", "T-1");
    metadata.put("source", Map.of("ui", "settings"));
    assertRoundTrip(
        """
        {
          "user_id": "usr_8821",
          "agent_id": "outreach",
          "scopes": [
            {"name": "email.send", "constraints": {"max_per_day": 20, "resource_pattern": "mailbox:*",
                                                   "allowed_initiators": ["user", "schedule"]}},
            {"name": "email.read"}
          ],
          "requires_confirm_for": ["email.send"],
          "requires_escalation_for": [],
          "escalation_targets": {"email.send": "manager"},
          "expires_at": "2026-12-01T00:00:00.000Z",
          "budget_limit_micros": 5000000,
          "metadata": {"ticket": "T-1", "source": {"ui": "settings"}}
        }
        """,
        CreateAuthorizationRequest.class,
        new CreateAuthorizationRequest(
            "usr_8821",
            "outreach",
            null,
            List.of(
                new ScopeEntry(
                    "email.send",
                    new ScopeConstraints(20L, "mailbox:*", List.of("user", "schedule"))),
                ScopeEntry.of("email.read")),
            List.of("email.send"),
            List.of(),
            Map.of("email.send", "manager"),
            EXPIRES,
            5_000_000L,
            metadata));
  }

  @Test
  void bundleCreateRequestOmitsAbsentMembers() {
    CreateAuthorizationRequest request =
        new CreateAuthorizationRequest(
            "usr_1", null, "support-bot", null, null, null, null, null, null, null);
    assertThat(write(request)).isEqualTo("{\"user_id\":\"usr_1\",\"bundle_id\":\"support-bot\"}");
    assertRoundTrip(
        "{\"user_id\":\"usr_1\",\"bundle_id\":\"support-bot\"}",
        CreateAuthorizationRequest.class,
        request);
  }

  @Test
  void scopeEntryOmitsAbsentConstraintsAndConstraintsOmitAbsentMembers() {
    assertRoundTrip("{\"name\":\"files.read\"}", ScopeEntry.class, ScopeEntry.of("files.read"));
    assertRoundTrip(
        "{\"name\":\"files.read\",\"constraints\":{\"max_per_day\":5}}",
        ScopeEntry.class,
        new ScopeEntry("files.read", new ScopeConstraints(5L, null, null)));
    assertRoundTrip(
        "{\"name\":\"files.read\",\"constraints\":{}}",
        ScopeEntry.class,
        new ScopeEntry("files.read", new ScopeConstraints(null, null, null)));
  }

  @Test
  void createdAuthorizationWritesNullsExplicitlyAndCarriesThePendingReceipt() {
    Authorization created =
        new Authorization(
            "auth_1",
            "usr_1",
            "agent_1",
            null,
            List.of(ScopeEntry.of("email.send")),
            List.of(),
            List.of(),
            Map.of(),
            EXPIRES,
            null,
            0,
            CREATED,
            null,
            Map.of(),
            AuthorizationStatus.ACTIVE,
            PENDING);
    String json =
        "{\"authorization_id\":\"auth_1\",\"user_id\":\"usr_1\",\"agent_id\":\"agent_1\","
            + "\"bundle_id\":null,\"scopes\":[{\"name\":\"email.send\"}],"
            + "\"requires_confirm_for\":[],\"requires_escalation_for\":[],"
            + "\"escalation_targets\":{},\"expires_at\":\"2026-12-01T00:00:00.000Z\","
            + "\"budget_limit_micros\":null,\"budget_spent_micros\":0,"
            + "\"created_at\":\"2026-11-22T10:15:30.123Z\",\"revoked_at\":null,\"metadata\":{},"
            + "\"status\":\"active\",\"receipt\":{\"status\":\"pending\","
            + "\"receipt_id\":\"01JDQ8Z6W4Y9V3K2M1N0P8R7S6\","
            + "\"ready_at_estimate\":\"2026-11-22T10:15:30.623Z\","
            + "\"url\":\"http://127.0.0.1:8080/v1/receipts/01JDQ8Z6W4Y9V3K2M1N0P8R7S6\"}}";
    assertThat(write(created)).isEqualTo(json);
    assertThat(read(json, Authorization.class)).isEqualTo(created);
  }

  @Test
  void fetchedAuthorizationOmitsReceipt() {
    Authorization revoked =
        assertRoundTrip(
            """
            {"authorization_id": "auth_1", "user_id": "usr_1", "agent_id": null,
             "bundle_id": "support-bot", "scopes": [{"name": "tickets.read"}],
             "requires_confirm_for": [], "requires_escalation_for": [],
             "escalation_targets": {}, "expires_at": "2026-12-01T00:00:00.000Z",
             "budget_limit_micros": 100, "budget_spent_micros": 40,
             "created_at": "2026-11-22T10:15:30.123Z", "revoked_at": "2026-11-23T08:00:00.000Z",
             "metadata": {"k": [1, 2]}, "status": "revoked"}
            """,
            Authorization.class,
            new Authorization(
                "auth_1",
                "usr_1",
                null,
                "support-bot",
                List.of(ScopeEntry.of("tickets.read")),
                List.of(),
                List.of(),
                Map.of(),
                EXPIRES,
                100L,
                40,
                CREATED,
                Instant.parse("2026-11-23T08:00:00Z"),
                Map.of("k", List.of(1, 2)),
                AuthorizationStatus.REVOKED,
                null));
    assertThat(revoked.withReceipt(PENDING).receipt()).isEqualTo(PENDING);
    assertThat(revoked.withReceipt(PENDING).withReceipt(null)).isEqualTo(revoked);
  }

  @Test
  void authorizationNullCollectionsBecomeEmpty() {
    Authorization a =
        new Authorization(
            "a",
            "u",
            "g",
            null,
            null,
            null,
            null,
            null,
            EXPIRES,
            null,
            0,
            CREATED,
            null,
            null,
            AuthorizationStatus.ACTIVE,
            null);
    assertThat(a.scopes()).isEmpty();
    assertThat(a.requiresConfirmFor()).isEmpty();
    assertThat(a.requiresEscalationFor()).isEmpty();
    assertThat(a.escalationTargets()).isEmpty();
    assertThat(a.metadata()).isEmpty();
  }

  @Test
  void authorizationPageWritesNullCursor() {
    assertRoundTrip(
        "{\"authorizations\":[],\"has_more\":false,\"next_cursor\":null}",
        AuthorizationPage.class,
        new AuthorizationPage(List.of(), false, null));
    assertThat(read("{\"has_more\":true,\"next_cursor\":\"c2\"}", AuthorizationPage.class))
        .isEqualTo(new AuthorizationPage(List.of(), true, "c2"));
  }

  @Test
  void revokeRequestOmitsAbsentMembers() {
    assertRoundTrip(
        "{\"revoked_by\":\"admin_7\",\"notes\":\"left the company\"}",
        RevokeAuthorizationRequest.class,
        new RevokeAuthorizationRequest("admin_7", "left the company"));
    assertRoundTrip(
        "{}", RevokeAuthorizationRequest.class, new RevokeAuthorizationRequest(null, null));
  }

  @Test
  void revokeResponseRoundTrips() {
    assertRoundTrip(
        """
        {"authorization_id": "auth_1", "revoked_at": "2026-11-23T08:00:00.000Z",
         "receipt": {"status": "pending", "receipt_id": "01JDQ8Z6W4Y9V3K2M1N0P8R7S6",
                     "ready_at_estimate": "2026-11-22T10:15:30.623Z",
                     "url": "http://127.0.0.1:8080/v1/receipts/01JDQ8Z6W4Y9V3K2M1N0P8R7S6"}}
        """,
        RevokeAuthorizationResponse.class,
        new RevokeAuthorizationResponse("auth_1", Instant.parse("2026-11-23T08:00:00Z"), PENDING));
  }
}
