package dev.agentauth.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.model.Authorization;
import dev.agentauth.model.CheckResponse;
import java.time.Duration;
import java.time.Instant;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;
import mockwebserver3.SocketEffect;
import org.junit.jupiter.api.Test;

/** Every POST and DELETE carries one Idempotency-Key per logical call, reused on retries. */
class IdempotencyTest extends MockServerSupport {

  @Test
  void retriedCheckReusesTheSameIdempotencyKey() throws Exception {
    server.enqueue(problem(503, "unavailable"));
    server.enqueue(
        new MockResponse.Builder().onResponseStart(new SocketEffect.CloseSocket()).build());
    server.enqueue(json(200, CHECK_ALLOW));

    CheckResponse r = client.check(emailCheck());

    assertThat(r.results().get("email.send").isAllowed()).isTrue();
    String first = take().getHeaders().get("Idempotency-Key");
    String second = take().getHeaders().get("Idempotency-Key");
    String third = take().getHeaders().get("Idempotency-Key");
    assertThat(first).isNotBlank().isEqualTo(second).isEqualTo(third);
  }

  @Test
  void eachLogicalCallGetsItsOwnKey() throws Exception {
    server.enqueue(json(200, CHECK_ALLOW));
    server.enqueue(json(200, CHECK_ALLOW));

    client.check(emailCheck());
    client.check(emailCheck());

    assertThat(take().getHeaders().get("Idempotency-Key"))
        .isNotEqualTo(take().getHeaders().get("Idempotency-Key"));
  }

  @Test
  void callerSuppliedKeyIsSentOnEveryAttempt() throws Exception {
    server.enqueue(problem(500, "internal_error"));
    server.enqueue(json(201, TOMBSTONE));

    client
        .tombstones()
        .create(
            "mailbox:42",
            null,
            RequestOptions.builder().idempotencyKey("order-4711-tombstone").build());

    assertThat(take().getHeaders().get("Idempotency-Key")).isEqualTo("order-4711-tombstone");
    assertThat(take().getHeaders().get("Idempotency-Key")).isEqualTo("order-4711-tombstone");
  }

  @Test
  void deleteCarriesAKeyAndGetAndPutDoNot() throws Exception {
    server.enqueue(fixture(200, "authorization-revoked.json"));
    server.enqueue(fixture(200, "bundle.json"));
    server.enqueue(fixture(200, "bundle.json"));

    client.authorizations().revoke("auth_1");
    client.bundles().get("support-bot-default");
    client
        .bundles()
        .edit(
            "support-bot-default",
            BundleParams.builder().agentId("support-bot").scope("email.send").build());

    RecordedRequest delete = take();
    assertThat(delete.getMethod()).isEqualTo("DELETE");
    assertThat(delete.getHeaders().get("Idempotency-Key")).isNotBlank();
    assertThat(take().getHeaders().get("Idempotency-Key")).isNull();
    RecordedRequest put = take();
    assertThat(put.getMethod()).isEqualTo("PUT");
    assertThat(put.getHeaders().get("Idempotency-Key")).isNull();
  }

  @Test
  void replayedAnswerIsReportedOnTheResponse() {
    server.enqueue(
        new MockResponse.Builder(fixture(201, "authorization-created.json"))
            .addHeader("Idempotent-Replayed", "true")
            .build());

    ApiResponse<Authorization> r =
        client
            .authorizations()
            .createWithResponse(
                AuthorizationCreateParams.inline()
                    .userId("u_1")
                    .agentId("bot")
                    .scope("email.send")
                    .expiresAt(Instant.parse("2026-12-01T00:00:00Z"))
                    .build(),
                RequestOptions.builder().timeout(Duration.ofSeconds(3)).build());

    assertThat(r.idempotentReplayed()).isTrue();
    assertThat(r.statusCode()).isEqualTo(201);
    assertThat(r.requestId()).isEqualTo("req_fixture_201");
  }
}
