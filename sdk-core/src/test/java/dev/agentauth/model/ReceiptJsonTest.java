package dev.agentauth.model;

import static dev.agentauth.model.WireJson.CLIENT;
import static dev.agentauth.model.WireJson.STRICT;
import static dev.agentauth.model.WireJson.assertRoundTrip;
import static dev.agentauth.model.WireJson.compact;
import static dev.agentauth.model.WireJson.ordered;
import static dev.agentauth.model.WireJson.read;
import static dev.agentauth.model.WireJson.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReceiptJsonTest {

  private static final PendingReceipt PENDING =
      new PendingReceipt(
          "01JDQ8Z6W4Y9V3K2M1N0P8R7S6",
          Instant.parse("2026-11-22T10:15:30.623Z"),
          "http://127.0.0.1:8080/v1/receipts/01JDQ8Z6W4Y9V3K2M1N0P8R7S6");
  private static final String PENDING_JSON =
      "{\"status\":\"pending\",\"receipt_id\":\"01JDQ8Z6W4Y9V3K2M1N0P8R7S6\","
          + "\"ready_at_estimate\":\"2026-11-22T10:15:30.623Z\","
          + "\"url\":\"http://127.0.0.1:8080/v1/receipts/01JDQ8Z6W4Y9V3K2M1N0P8R7S6\"}";

  /** {@code action_minimal_allow} of the public receipt-format test vectors. */
  private static final String SCOPE_RECEIPT_JSON =
      """
      {"version": "1.0", "receipt_id": "rcp_01HXZMINIMAL0000000000000", "workspace_id": "ws_test",
       "issued_at": "2026-04-21T14:32:17.482Z", "decision": "allow",
       "reason": "authorization_granted_scope_active", "user_id": "emp_8821",
       "agent_id": "referral_outreach", "scope": "outreach.send",
       "resource": "edge:emp_8821:conn_9f2a", "context": {},
       "authorization_id": "auth_01HXZ2A0K1L2M3N4P5Q6R7S8T9", "policy_version": "2026-04-17.1",
       "signature": {"alg": "Ed25519", "key_id": "test-key/v1",
         "value": "yKsEq4jFxep1KipvabW79vxu3FghNYgvpXWEThUNKzIotvvlA6i7hzUx9wSD042Gn4htO8QUZCXunS-OExvIAQ"}}
      """;

  private static final SignedReceipt SCOPE_RECEIPT =
      new SignedReceipt(
          "1.0",
          "rcp_01HXZMINIMAL0000000000000",
          "ws_test",
          Instant.parse("2026-04-21T14:32:17.482Z"),
          Decision.ALLOW,
          Reason.AUTHORIZATION_GRANTED_SCOPE_ACTIVE,
          "emp_8821",
          "referral_outreach",
          "outreach.send",
          null,
          "edge:emp_8821:conn_9f2a",
          Map.of(),
          "auth_01HXZ2A0K1L2M3N4P5Q6R7S8T9",
          "2026-04-17.1",
          null,
          new ReceiptSignature(
              "Ed25519",
              "test-key/v1",
              "yKsEq4jFxep1KipvabW79vxu3FghNYgvpXWEThUNKzIotvvlA6i7hzUx9wSD042Gn4htO8QUZCXunS-OExvIAQ"));

  @Test
  void pendingEnvelopeRoundTrips() {
    assertRoundTrip(PENDING_JSON, PendingReceipt.class, PENDING);
    assertRoundTrip(PENDING_JSON, ReceiptRef.class, PENDING);
    assertThat(PENDING.status()).isEqualTo("pending");
  }

  @Test
  void scopeReceiptRoundTripsExactlyInFormatOrder() {
    assertRoundTrip(SCOPE_RECEIPT_JSON, SignedReceipt.class, SCOPE_RECEIPT);
    assertThat(write(SCOPE_RECEIPT)).isEqualTo(compact(SCOPE_RECEIPT_JSON));
  }

  @Test
  void eventReceiptWritesNullResourceAndOmitsScope() {
    SignedReceipt create =
        new SignedReceipt(
            "1.0",
            "01JDQ8Z6W4Y9V3K2M1N0P8R7S6",
            "ws_1",
            Instant.parse("2026-11-22T10:15:30Z"),
            Decision.AUTHORIZATION_GRANTED,
            Reason.AUTHORIZATION_CREATED,
            "usr_1",
            "agent_1",
            null,
            ReceiptEvent.AUTHORIZATION_CREATE,
            null,
            ordered("scopes", List.of(Map.of("name", "email.send")), "bundle_id", null),
            "auth_1",
            "2026-11-21.1",
            null,
            new ReceiptSignature("Ed25519", "ws_1/k1", "c2ln"));
    String json =
        "{\"version\":\"1.0\",\"receipt_id\":\"01JDQ8Z6W4Y9V3K2M1N0P8R7S6\","
            + "\"workspace_id\":\"ws_1\",\"issued_at\":\"2026-11-22T10:15:30.000Z\","
            + "\"decision\":\"authorization_granted\",\"reason\":\"authorization_created\","
            + "\"user_id\":\"usr_1\",\"agent_id\":\"agent_1\",\"event\":\"authorization.create\","
            + "\"resource\":null,\"context\":{\"scopes\":[{\"name\":\"email.send\"}],"
            + "\"bundle_id\":null},\"authorization_id\":\"auth_1\","
            + "\"policy_version\":\"2026-11-21.1\",\"signature\":{\"alg\":\"Ed25519\","
            + "\"key_id\":\"ws_1/k1\",\"value\":\"c2ln\"}}";
    assertThat(write(create)).isEqualTo(json);
    assertRoundTrip(json, SignedReceipt.class, create);
  }

  @Test
  void notFoundScopeReceiptWritesNullUserAgentAndResource() {
    SignedReceipt notFound =
        new SignedReceipt(
            "1.0",
            "01JDQ8Z6W4Y9V3K2M1N0P8R7S6",
            "ws_1",
            Instant.parse("2026-11-22T10:15:30.001Z"),
            Decision.DENY,
            Reason.AUTHORIZATION_NOT_FOUND,
            null,
            null,
            "email.send",
            null,
            null,
            Map.of(),
            "auth_missing",
            "2026-11-21.1",
            null,
            new ReceiptSignature("Ed25519", "k", "v"));
    assertThat(write(notFound))
        .isEqualTo(
            "{\"version\":\"1.0\",\"receipt_id\":\"01JDQ8Z6W4Y9V3K2M1N0P8R7S6\","
                + "\"workspace_id\":\"ws_1\",\"issued_at\":\"2026-11-22T10:15:30.001Z\","
                + "\"decision\":\"deny\",\"reason\":\"authorization_not_found\","
                + "\"user_id\":null,\"agent_id\":null,\"scope\":\"email.send\","
                + "\"resource\":null,\"context\":{},\"authorization_id\":\"auth_missing\","
                + "\"policy_version\":\"2026-11-21.1\","
                + "\"signature\":{\"alg\":\"Ed25519\",\"key_id\":\"k\",\"value\":\"v\"}}");
  }

  @Test
  void unknownReasonOfAForeignIssuerIsKeptVerbatim() {
    String json =
        """
        {"version": "1.0", "receipt_id": "rcp_01HXZDENY0000000000000000", "workspace_id": "ws_test",
         "issued_at": "2026-04-21T15:00:00.000Z", "decision": "deny",
         "reason": "no_matching_authorization", "user_id": "emp_8821",
         "agent_id": "referral_outreach", "scope": "files.delete", "resource": "gdrive:file:xyz",
         "context": {}, "authorization_id": null, "policy_version": "2026-04-17.1",
         "signature": {"alg": "Ed25519", "key_id": "test-key/v1",
           "value": "pl0uNusKgMLn3IOJJM-PryX0KxcZi6KJ5dhGx0cibS81fW_ssYfaJc8cbRo1KN2ZFb4Y5kgX4KnlBxxEbOChAg"}}
        """;
    SignedReceipt receipt = read(json, SignedReceipt.class);
    assertThat(receipt.reason().isKnown()).isFalse();
    assertThat(receipt.reason().value()).isEqualTo("no_matching_authorization");
    assertThat(receipt.authorizationId()).isNull();
    assertThat(write(receipt)).isEqualTo(compact(json));
  }

  @Test
  void policyEvalRoundTripsAsATree() {
    String json =
        """
        {"version": "1.0", "receipt_id": "rcp_01J0Z7Q4BORDERLINE0CONFIRM", "workspace_id": "ws_test",
         "issued_at": "2026-06-09T17:04:09.114Z", "decision": "confirm",
         "reason": "confirm_condition_matched", "user_id": "cand_55ab2",
         "agent_id": "scout_referrals", "scope": "hiring.reject_application",
         "resource": "application:req_2207:cand_55ab2",
         "context": {"initiated_by": "agent", "score": 68, "threshold": 70, "score_delta": 2,
                     "opt_out": false},
         "authorization_id": "auth_conditional", "policy_version": "2026-06-01.2",
         "policy_eval": {"matched_condition": {"field": "score_delta", "op": "lt", "value": 5},
                         "field_value": 2},
         "signature": {"alg": "Ed25519", "key_id": "test-key/v1",
           "value": "zA9T1NQVqdVtf-9ll4H7EGAzc4y38jcGqlNZCLUxC2xA3BzS2mzGj-xU_yIhe8g_cje1e5sBtBoPyQUG-C6hAQ"}}
        """;
    SignedReceipt receipt = read(json, SignedReceipt.class);
    assertThat(receipt.policyEval().path("matched_condition").path("op").asText()).isEqualTo("lt");
    assertThat(receipt.context().keySet())
        .containsExactly("initiated_by", "score", "threshold", "score_delta", "opt_out");
    assertThat(write(receipt)).isEqualTo(compact(json));
    assertThat(WireJson.readStrict(json, SignedReceipt.class)).isEqualTo(receipt);
  }

  @Test
  void receiptRefWithSignatureReadsAsSignedReceipt() {
    assertThat(read(SCOPE_RECEIPT_JSON, ReceiptRef.class))
        .isInstanceOf(SignedReceipt.class)
        .isEqualTo(SCOPE_RECEIPT);
    assertRoundTrip(SCOPE_RECEIPT_JSON, ReceiptRef.class, SCOPE_RECEIPT);
  }

  @Test
  void receiptRefWithPendingStatusReadsAsEnvelope() {
    assertThat(read(PENDING_JSON, ReceiptRef.class))
        .isInstanceOf(PendingReceipt.class)
        .isEqualTo(PENDING);
  }

  @Test
  void receiptRefMemberReadsBothShapesAndNull() {
    String signedJson =
        "{\"authorization_id\":\"auth_1\",\"revoked_at\":\"2026-11-23T08:00:00.000Z\","
            + "\"receipt\":"
            + compact(SCOPE_RECEIPT_JSON)
            + "}";
    RevokeAuthorizationResponse signed = read(signedJson, RevokeAuthorizationResponse.class);
    assertThat(signed.receipt()).isEqualTo(SCOPE_RECEIPT);
    assertThat(write(signed)).isEqualTo(signedJson);

    String pendingJson =
        "{\"authorization_id\":\"auth_1\",\"revoked_at\":\"2026-11-23T08:00:00.000Z\","
            + "\"receipt\":"
            + PENDING_JSON
            + "}";
    assertThat(read(pendingJson, RevokeAuthorizationResponse.class).receipt()).isEqualTo(PENDING);

    assertThat(
            read(
                    "{\"authorization_id\":\"a\",\"revoked_at\":null,\"receipt\":null}",
                    RevokeAuthorizationResponse.class)
                .receipt())
        .isNull();
  }

  @Test
  void receiptRefWithNeitherSignatureNorPendingStatusFails() {
    for (String json :
        new String[] {
          "{\"receipt_id\":\"r\"}", "{\"status\":\"signed\",\"receipt_id\":\"r\"}", "[]", "\"r\""
        }) {
      assertThatThrownBy(() -> CLIENT.readValue(json, ReceiptRef.class))
          .as(json)
          .isInstanceOf(MismatchedInputException.class);
    }
  }

  @Test
  void receiptRefKeepsTheCallersStrictness() {
    String extra = PENDING_JSON.replace("{\"status\"", "{\"extra\":1,\"status\"");
    assertThat(read(extra, ReceiptRef.class)).isEqualTo(PENDING);
    assertThatThrownBy(() -> STRICT.readValue(extra, ReceiptRef.class))
        .isInstanceOf(UnrecognizedPropertyException.class);
  }

  @Test
  void receiptLookupPendingReadsAsEnvelope() {
    ReceiptLookup lookup = assertRoundTrip(PENDING_JSON, ReceiptLookup.class, PENDING);
    assertThat(lookup).isInstanceOf(PendingReceipt.class);
    assertThat(lookup.receiptId()).isEqualTo("01JDQ8Z6W4Y9V3K2M1N0P8R7S6");
  }

  @Test
  void receiptLookupSignedWrapsTheReceipt() {
    String json = "{\"status\":\"signed\",\"receipt\":" + compact(SCOPE_RECEIPT_JSON) + "}";
    ReceiptLookup lookup =
        assertRoundTrip(json, ReceiptLookup.class, new ReceiptLookup.Signed(SCOPE_RECEIPT));
    assertThat(lookup).isInstanceOf(ReceiptLookup.Signed.class);
    assertThat(lookup.receiptId()).isEqualTo("rcp_01HXZMINIMAL0000000000000");
    assertThat(((ReceiptLookup.Signed) lookup).receipt()).isEqualTo(SCOPE_RECEIPT);
    assertThat(write(new ReceiptLookup.Signed(SCOPE_RECEIPT))).isEqualTo(json);
  }

  @Test
  void receiptLookupWithOtherStatusFails() {
    for (String json :
        new String[] {
          "{\"status\":\"revoked\"}", "{\"receipt_id\":\"r\"}", "{\"status\":1}", "[]"
        }) {
      assertThatThrownBy(() -> CLIENT.readValue(json, ReceiptLookup.class))
          .as(json)
          .isInstanceOf(MismatchedInputException.class);
    }
  }

  @Test
  void variantsCheckTheirDiscriminator() {
    assertThatThrownBy(() -> new PendingReceipt("signed", "r", null, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("expected status \"pending\", found: \"signed\"");
    assertThatThrownBy(() -> new ReceiptLookup.Signed("pending", SCOPE_RECEIPT))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ReceiptLookup.Signed(null))
        .isInstanceOf(NullPointerException.class);
    assertThatThrownBy(
            () ->
                CLIENT.readValue(
                    "{\"status\":\"signed\",\"receipt_id\":\"r\"}", PendingReceipt.class))
        .isInstanceOf(ValueInstantiationException.class)
        .hasMessageContaining("expected status \"pending\"");
    assertThat(new PendingReceipt(null, "r", null, null).status()).isEqualTo("pending");
  }

  @Test
  void subtypesReadDirectlyWithoutTheUnionDeserializer() {
    assertThat(read(PENDING_JSON, PendingReceipt.class)).isEqualTo(PENDING);
    assertThat(read(SCOPE_RECEIPT_JSON, SignedReceipt.class)).isEqualTo(SCOPE_RECEIPT);
    assertThat(
            read(
                "{\"status\":\"signed\",\"receipt\":" + compact(SCOPE_RECEIPT_JSON) + "}",
                ReceiptLookup.Signed.class))
        .isEqualTo(new ReceiptLookup.Signed(SCOPE_RECEIPT));
  }

  @Test
  void withSignatureReplacesOnlyTheSignature() {
    ReceiptSignature other = new ReceiptSignature("Ed25519", "k2", "x");
    SignedReceipt resigned = SCOPE_RECEIPT.withSignature(other);
    assertThat(resigned.signature()).isEqualTo(other);
    assertThat(resigned.withSignature(SCOPE_RECEIPT.signature())).isEqualTo(SCOPE_RECEIPT);
  }

  @Test
  void summaryOfScopeReceiptWritesNullEvent() {
    ReceiptSummary summary =
        new ReceiptSummary(
            "01JDQ8Z6W4Y9V3K2M1N0P8R7S6",
            "auth_1",
            "email.send",
            null,
            Decision.ALLOW,
            true,
            Instant.parse("2026-11-22T10:15:30.123Z"));
    String json =
        "{\"receipt_id\":\"01JDQ8Z6W4Y9V3K2M1N0P8R7S6\",\"authorization_id\":\"auth_1\","
            + "\"scope\":\"email.send\",\"event\":null,\"decision\":\"allow\",\"signed\":true,"
            + "\"created_at\":\"2026-11-22T10:15:30.123Z\"}";
    assertThat(write(summary)).isEqualTo(json);
    assertRoundTrip(json, ReceiptSummary.class, summary);
  }

  @Test
  void summaryOfEventReceiptWritesNullScope() {
    assertRoundTrip(
        "{\"receipt_id\":\"01JDQ8Z6W4Y9V3K2M1N0P8R7S7\",\"authorization_id\":\"auth_1\","
            + "\"scope\":null,\"event\":\"authorization.revoke\","
            + "\"decision\":\"authorization_revoked\",\"signed\":false,"
            + "\"created_at\":\"2026-11-22T10:15:30.123Z\"}",
        ReceiptSummary.class,
        new ReceiptSummary(
            "01JDQ8Z6W4Y9V3K2M1N0P8R7S7",
            "auth_1",
            null,
            ReceiptEvent.AUTHORIZATION_REVOKE,
            Decision.AUTHORIZATION_REVOKED,
            false,
            Instant.parse("2026-11-22T10:15:30.123Z")));
  }

  @Test
  void receiptPageRoundTrips() {
    assertRoundTrip(
        "{\"receipts\":[{\"receipt_id\":\"r1\",\"authorization_id\":null,\"scope\":\"s\","
            + "\"event\":null,\"decision\":\"deny\",\"signed\":true,"
            + "\"created_at\":\"2026-11-22T10:15:30.123Z\"}],\"has_more\":true,"
            + "\"next_cursor\":\"opaque\"}",
        ReceiptPage.class,
        new ReceiptPage(
            List.of(
                new ReceiptSummary(
                    "r1",
                    null,
                    "s",
                    null,
                    Decision.DENY,
                    true,
                    Instant.parse("2026-11-22T10:15:30.123Z"))),
            true,
            "opaque"));
  }

  @Test
  void workspaceKeysWriteNullActiveUntil() {
    WorkspaceKeys keys =
        new WorkspaceKeys(
            "ws_1",
            List.of(
                new WorkspaceKey(
                    "ws_1/k2",
                    "Ed25519",
                    "O2onvM62pC1io6jQKm8Nc2UyFXcd4kOmOsBIoYtZ2ik",
                    Instant.parse("2026-11-22T00:00:00Z"),
                    null),
                new WorkspaceKey(
                    "ws_1/k1",
                    "Ed25519",
                    "AAAAC3NzaC1lZDI1NTE5AAAAIG2JzY3Rlc3Q",
                    Instant.parse("2026-01-01T00:00:00Z"),
                    Instant.parse("2026-11-22T00:00:00Z"))));
    assertRoundTrip(
        "{\"workspace_id\":\"ws_1\",\"keys\":[{\"key_id\":\"ws_1/k2\",\"alg\":\"Ed25519\","
            + "\"public_key\":\"O2onvM62pC1io6jQKm8Nc2UyFXcd4kOmOsBIoYtZ2ik\","
            + "\"active_from\":\"2026-11-22T00:00:00.000Z\",\"active_until\":null},"
            + "{\"key_id\":\"ws_1/k1\",\"alg\":\"Ed25519\","
            + "\"public_key\":\"AAAAC3NzaC1lZDI1NTE5AAAAIG2JzY3Rlc3Q\","
            + "\"active_from\":\"2026-01-01T00:00:00.000Z\","
            + "\"active_until\":\"2026-11-22T00:00:00.000Z\"}]}",
        WorkspaceKeys.class,
        keys);
  }

  @Test
  void workspaceKeysOfTheTestVectorsReadWithSecondPrecision() {
    WorkspaceKeys keys =
        read(
            """
            {"workspace_id": "ws_test", "keys": [{"key_id": "test-key/v1", "alg": "Ed25519",
              "public_key": "O2onvM62pC1io6jQKm8Nc2UyFXcd4kOmOsBIoYtZ2ik",
              "active_from": "2026-01-01T00:00:00Z", "active_until": null}]}
            """,
            WorkspaceKeys.class);
    assertThat(keys.keys().get(0).activeFrom()).isEqualTo(Instant.parse("2026-01-01T00:00:00Z"));
    assertThat(keys.keys().get(0).activeUntil()).isNull();
  }
}
