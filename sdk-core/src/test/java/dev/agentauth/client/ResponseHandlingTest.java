package dev.agentauth.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.model.FieldError;
import dev.agentauth.model.ReceiptLookup;
import java.time.Duration;
import java.util.stream.Stream;
import mockwebserver3.MockResponse;
import mockwebserver3.SocketEffect;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** How answers become values or exceptions: problem details, foreign bodies, broken bodies. */
class ResponseHandlingTest extends MockServerSupport {

  static Stream<Arguments> problemStatuses() {
    return Stream.of(
        Arguments.of(400, "problem-invalid-request.json", BadRequestException.class),
        Arguments.of(401, "problem-unauthenticated.json", AuthenticationException.class),
        Arguments.of(402, "problem-plan-required.json", PlanRequiredException.class),
        Arguments.of(403, "problem-forbidden.json", ForbiddenException.class),
        Arguments.of(404, "problem-not-found.json", NotFoundException.class),
        Arguments.of(409, "problem-already-revoked.json", ConflictException.class),
        Arguments.of(410, "problem-nonce-gone.json", GoneException.class),
        Arguments.of(413, "problem-payload-too-large.json", PayloadTooLargeException.class),
        Arguments.of(429, "problem-rate-limited.json", RateLimitException.class),
        Arguments.of(500, "problem-internal-error.json", ServerException.class));
  }

  @ParameterizedTest(name = "HTTP {0} becomes {2}")
  @MethodSource("problemStatuses")
  void problemBodyBecomesTheStatusSubclassWithCodeDetailAndRequestId(
      int status, String file, Class<? extends ApiException> type) {
    RequestOptions noRetry = RequestOptions.builder().maxRetries(0).build();
    server.enqueue(fixture(status, file));

    assertThatThrownBy(() -> client.receipts().get("01JDQ3Z8W4K2M7N9P1Q3R5S7T9", noRetry))
        .isExactlyInstanceOf(type)
        .satisfies(
            e -> {
              ApiException api = (ApiException) e;
              assertThat(api.statusCode()).isEqualTo(status);
              assertThat(api.code()).isNotBlank();
              assertThat(api.detail()).isNotBlank();
              assertThat(api.requestId()).isEqualTo("req_fixture_" + status);
              assertThat(api.problem()).isNotNull();
              assertThat(api.getMessage())
                  .startsWith("GET /v1/receipts/{id} failed: HTTP " + status + " " + api.code())
                  .contains(api.detail())
                  .endsWith("(request_id req_fixture_" + status + ")");
            });
  }

  @Test
  void validationProblemCarriesFieldErrors() {
    server.enqueue(fixture(400, "problem-invalid-request.json"));

    assertThatThrownBy(() -> client.check(emailCheck()))
        .isInstanceOfSatisfying(
            BadRequestException.class,
            e -> {
              assertThat(e.code()).isEqualTo("invalid_request");
              assertThat(e.fieldErrors())
                  .extracting(FieldError::field)
                  .containsExactly("scopes[1].name", "expires_at");
              assertThat(e.getMessage()).contains("scopes[1].name: expected 1-200 characters");
            });
  }

  @Test
  void aRedirectIsNotFollowedSoTheApiKeyNeverGoesWhereItPoints() throws Exception {
    RequestOptions noRetry = RequestOptions.builder().maxRetries(0).build();
    server.enqueue(
        new MockResponse.Builder()
            .code(307)
            .addHeader("Location", server.url("/elsewhere/v1/tombstones"))
            .build());

    assertThatThrownBy(() -> client.tombstones().list(ListParams.none(), noRetry))
        .isInstanceOfSatisfying(
            ApiException.class,
            e -> {
              assertThat(e.statusCode()).isEqualTo(307);
              assertThat(e.getMessage())
                  .contains("HTTP 307 redirect to ")
                  .contains("/elsewhere/v1/tombstones")
                  .contains("follows no redirect")
                  .doesNotContain(API_KEY);
            });
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void proxyHtmlPageStillYieldsAClearServerException() {
    RequestOptions noRetry = RequestOptions.builder().maxRetries(0).build();
    server.enqueue(fixture(502, "gateway-502.html"));

    assertThatThrownBy(() -> client.tombstones().list(ListParams.none(), noRetry))
        .isInstanceOfSatisfying(
            ServerException.class,
            e -> {
              assertThat(e.statusCode()).isEqualTo(502);
              assertThat(e.code()).isNull();
              assertThat(e.fieldErrors()).isEmpty();
              assertThat(e.getMessage())
                  .contains("HTTP 502; expected an application/problem+json body")
                  .contains("found text/html; charset=utf-8")
                  .contains("502 Bad Gateway");
            });
  }

  @Test
  void jsonErrorBodyThatIsNotAProblemIsDescribed() {
    server.enqueue(
        new MockResponse.Builder()
            .code(418)
            .addHeader("Content-Type", "application/json")
            .body("{\"error\":\"forbidden by policy\"}")
            .build());

    assertThatThrownBy(() -> client.tombstones().list())
        .isExactlyInstanceOf(ApiException.class)
        .hasMessageContaining("HTTP 418; expected an application/problem+json body")
        .hasMessageContaining("forbidden by policy");
  }

  @Test
  void emptyErrorBodyIsDescribed() {
    server.enqueue(new MockResponse.Builder().code(404).build());

    assertThatThrownBy(() -> client.bundles().get("nope"))
        .isExactlyInstanceOf(NotFoundException.class)
        .hasMessageContaining("with an empty body");
  }

  @Test
  void problemRequestIdIsUsedWhenTheHeaderIsMissing() {
    server.enqueue(
        new MockResponse.Builder()
            .code(404)
            .addHeader("Content-Type", "application/problem+json")
            .body(Fixtures.body("problem-not-found.json"))
            .build());

    assertThatThrownBy(() -> client.bundles().get("nope"))
        .isInstanceOfSatisfying(
            NotFoundException.class, e -> assertThat(e.requestId()).isEqualTo("req_not_found"));
  }

  @Test
  void malformedSuccessBodyIsAMalformedResponseAndNotRetried() {
    server.enqueue(json(200, "{\"receipts\": [ {\"receipt_id\": "));

    assertThatThrownBy(() -> client.receipts().list())
        .isInstanceOfSatisfying(
            MalformedResponseException.class,
            e -> {
              assertThat(e.statusCode()).isEqualTo(200);
              assertThat(e.requestId()).isEqualTo("req_200");
              assertThat(e.getMessage())
                  .contains("GET /v1/receipts answered HTTP 200 but the body is not the expected")
                  .contains("ReceiptPage");
            });
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void htmlSuccessBodyIsAMalformedResponse() {
    server.enqueue(
        new MockResponse.Builder()
            .code(200)
            .addHeader("Content-Type", "text/html")
            .body("<html>Please log in to the captive portal</html>")
            .build());

    assertThatThrownBy(() -> client.check(emailCheck()))
        .isInstanceOf(MalformedResponseException.class)
        .hasMessageContaining("found text/html: \"<html>Please log in");
  }

  @Test
  void emptySuccessBodyIsAMalformedResponse() {
    server.enqueue(new MockResponse.Builder().code(200).build());

    assertThatThrownBy(() -> client.workspaces().keys("ws_acme"))
        .isInstanceOf(MalformedResponseException.class)
        .hasMessageContaining("with an empty body");
  }

  @Test
  void keysJsonOfABodyThatIsNotAKeysDocumentIsAMalformedResponse() {
    server.enqueue(json(200, "{\"workspace_id\":\"ws_acme\",\"keys\":\"none\"}"));

    assertThatThrownBy(() -> client.workspaces().keysJson("ws_acme"))
        .isInstanceOf(MalformedResponseException.class)
        .hasMessageContaining("is not the expected JSON (WorkspaceKeys)");
  }

  @Test
  void signedReceiptWhoseReceiptMemberAppearsTwiceIsAMalformedResponse() {
    String receipt = "{\"version\":\"1.0\",\"receipt_id\":\"x\"}";
    server.enqueue(
        json(
            200,
            "{\"status\":\"signed\",\"receipt\":" + receipt + ",\"receipt\":" + receipt + "}"));

    assertThatThrownBy(() -> client.receipts().awaitSignedJson("x", Duration.ofSeconds(1)))
        .isInstanceOf(MalformedResponseException.class)
        .hasMessageContaining("is not the expected JSON (ReceiptLookup)")
        .hasRootCauseMessage("the receipt member appears twice");
  }

  @Test
  void unknownReceiptStatusIsAMalformedResponse() {
    server.enqueue(json(200, "{\"status\":\"exploded\",\"receipt_id\":\"x\"}"));

    assertThatThrownBy(() -> client.receipts().get("x"))
        .isInstanceOf(MalformedResponseException.class);
  }

  @Test
  void connectionDroppedMidBodyIsRetriedAndThenAConnectionExceptionWithTheRequestId() {
    for (int i = 0; i < 3; i++) {
      server.enqueue(
          new MockResponse.Builder(fixture(200, "receipt-page-1.json"))
              .throttleBody(64, 0, java.util.concurrent.TimeUnit.MILLISECONDS)
              .onResponseBody(new SocketEffect.CloseSocket())
              .build());
    }

    assertThatThrownBy(() -> client.receipts().list())
        .isExactlyInstanceOf(ConnectionException.class)
        .hasMessageContaining("GET /v1/receipts failed")
        .satisfies(
            e -> assertThat(((ConnectionException) e).requestId()).isEqualTo("req_fixture_200"));
    assertThat(server.getRequestCount()).isEqualTo(3);
  }

  @Test
  void connectionDroppedMidBodyThenAFullAnswerSucceeds() {
    server.enqueue(
        new MockResponse.Builder(fixture(200, "receipt-signed.json"))
            .throttleBody(64, 0, java.util.concurrent.TimeUnit.MILLISECONDS)
            .onResponseBody(new SocketEffect.CloseSocket())
            .build());
    server.enqueue(fixture(200, "receipt-signed.json"));

    assertThat(client.receipts().get("01JDQ3Z8W4K2M7N9P1Q3R5S7T9"))
        .isInstanceOf(ReceiptLookup.Signed.class);
  }

  @Test
  void requestIdIsReachableOnSuccessfulResponses() {
    server.enqueue(fixture(200, "workspace-keys.json"));

    ApiResponse<?> r = client.workspaces().keysWithResponse("ws_acme", RequestOptions.none());

    assertThat(r.requestId()).isEqualTo("req_fixture_200");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.fallbackCause()).isNull();
  }
}
