package dev.agentauth.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.AuthorizationCreateParams;
import dev.agentauth.client.BadRequestException;
import dev.agentauth.client.CheckParams;
import dev.agentauth.model.Authorization;
import dev.agentauth.model.FieldError;
import dev.agentauth.model.Reason;
import dev.agentauth.server.AgentAuthServer;
import dev.agentauth.server.TestClock;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.Test;

/**
 * The Java of docs/server.md, run; each region is the twin of a fence (see {@link
 * DocSnippetsTest}).
 */
class ServerDocSnippetsTest {
  private static final Instant START = Instant.parse("2026-11-22T10:00:00Z");

  /** Whether the snippet reached {@link #runYourTests} and it passed. */
  private boolean ran;

  @Test
  void embedTheServer() throws IOException {
    // spotless:off
    // @start region="embed"
    TestClock clock = new TestClock(Instant.parse("2026-11-22T10:00:00Z"));   // or TestClock.startingNow()
    try (AgentAuthServer server = AgentAuthServer.builder()
            .port(0)                                  // any free loopback port (the default)
            .workspace("ws_test", "pro")
            .apiKey("sk_" + "A".repeat(43))           // or leave it out and read server.apiKey()
            .adminToken("admin-secret")
            .clock(clock)
            .build()
            .start()) {
      String baseUrl = server.baseUrl();              // http://127.0.0.1:54321
      String apiKey = server.apiKey();
      runYourTests(baseUrl, apiKey, clock);           // clients on baseUrl; times from clock.instant()
    }
    // @end region="embed"
    // spotless:on
    assertThat(ran).isTrue();
  }

  /** What the reader's tests do with the embedded server, and what the doc promises about it. */
  private void runYourTests(String baseUrl, String apiKey, TestClock clock) throws IOException {
    assertThat(baseUrl).matches("http://127\\.0\\.0\\.1:[1-9][0-9]*");
    assertThat(apiKey).isEqualTo("sk_" + "A".repeat(43));
    assertThat(clock.instant()).isEqualTo(START);
    AgentAuthClient client =
        AgentAuthClient.builder().baseUrl(baseUrl).apiKey(apiKey).maxRetries(0).build();
    Authorization grant =
        client
            .authorizations()
            .create(
                AuthorizationCreateParams.inline()
                    .userId("u_test")
                    .agentId("agent_under_test")
                    .scope("calendar.read")
                    .expiresAt(clock.instant().plus(Duration.ofHours(1)))
                    .build());
    CheckParams check = CheckParams.of(grant.authorizationId(), "calendar.read");
    assertThat(client.check(check).results().get("calendar.read").isAllowed()).isTrue();

    // The server judges expires_at against its own clock, and says what its time is.
    assertThatThrownBy(
            () ->
                client
                    .authorizations()
                    .create(
                        AuthorizationCreateParams.inline()
                            .userId("u_test")
                            .agentId("agent_under_test")
                            .scope("calendar.read")
                            .expiresAt(Instant.now().plus(Duration.ofDays(365)))
                            .build()))
        .isInstanceOfSatisfying(
            BadRequestException.class,
            e ->
                assertThat(e.fieldErrors())
                    .extracting(FieldError::field, FieldError::message)
                    .containsExactly(
                        tuple(
                            "expires_at",
                            "must be at most 366 days ahead of the server's time"
                                + " (2026-11-22T10:00:00.000Z)")));

    // The workspace is ws_test; its keys are public.
    OkHttpClient http = new OkHttpClient();
    try (Response keys =
        http.newCall(new Request.Builder().url(baseUrl + "/v1/workspaces/ws_test/keys").build())
            .execute()) {
      assertThat(keys.code()).isEqualTo(200);
    }
    // With an admin token, a TestClock can also be moved over HTTP.
    Request advance =
        new Request.Builder()
            .url(baseUrl + "/admin/v1/clock")
            .header("Authorization", "Bearer admin-secret")
            .post(
                RequestBody.create("{\"advance_seconds\":7200}", MediaType.get("application/json")))
            .build();
    try (Response moved = http.newCall(advance).execute()) {
      assertThat(moved.code()).as(moved.body().string()).isEqualTo(200);
    }
    http.dispatcher().executorService().shutdown();
    assertThat(clock.instant()).isEqualTo(START.plus(Duration.ofHours(2)));
    assertThat(client.check(check).results().get("calendar.read").reason())
        .isEqualTo(Reason.AUTHORIZATION_EXPIRED);
    ran = true;
  }
}
