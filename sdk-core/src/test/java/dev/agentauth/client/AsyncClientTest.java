package dev.agentauth.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.model.Authorization;
import dev.agentauth.model.CheckResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.Test;

/** The async twin runs on OkHttp's dispatcher and waits on a timer, never on a pool thread. */
class AsyncClientTest extends MockServerSupport {

  @Test
  void asyncCheckCompletesOnOkHttpsDispatcher() throws Exception {
    // The server holds its answer until the callback is attached, so the future cannot already be
    // complete then: a callback attached to a completed future would run on this thread instead.
    CountDownLatch attached = new CountDownLatch(1);
    server.setDispatcher(
        new Dispatcher() {
          @Override
          public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
            attached.await(5, TimeUnit.SECONDS);
            return fixture(200, "check-mixed.json");
          }
        });

    CompletableFuture<CheckResponse> check =
        client.async().check(CheckParams.of("auth_01", "crm.read"));
    CompletableFuture<String> completedOn =
        check.handle((v, e) -> Thread.currentThread().getName());
    assertThat(check).isNotDone();
    attached.countDown();

    assertThat(completedOn.get(5, TimeUnit.SECONDS)).contains("OkHttp");
    assertThat(check.get(5, TimeUnit.SECONDS).results()).containsKey("crm.read");
  }

  @Test
  void asyncRetriesWaitOnTheTimerAndReuseTheIdempotencyKey() throws Exception {
    server.enqueue(problem(503, "unavailable"));
    server.enqueue(problem(502, "bad_gateway"));
    server.enqueue(fixture(201, "authorization-created.json"));

    Authorization a =
        client
            .async()
            .authorizations()
            .create(
                AuthorizationCreateParams.fromBundle("support-bot-default").userId("u_1").build())
            .get(5, TimeUnit.SECONDS);

    assertThat(a.authorizationId()).isEqualTo("auth_01");
    assertThat(timing.sleeps()).isEmpty();
    assertThat(timing.delays()).containsExactly(Duration.ofMillis(150), Duration.ofMillis(300));
    String key = take().getHeaders().get("Idempotency-Key");
    assertThat(take().getHeaders().get("Idempotency-Key")).isEqualTo(key);
    assertThat(take().getHeaders().get("Idempotency-Key")).isEqualTo(key);
  }

  @Test
  void asyncFailureCompletesWithTheSameExceptionTypeUnwrapped() {
    server.enqueue(fixture(409, "problem-already-revoked.json"));

    CompletableFuture<?> f = client.async().authorizations().revoke("auth_01");

    assertThatThrownBy(() -> f.get(5, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOfSatisfying(
            ConflictException.class, e -> assertThat(e.code()).isEqualTo("already_revoked"));
    AtomicReference<Throwable> seen = new AtomicReference<>();
    f.exceptionally(
            e -> {
              seen.set(e);
              return null;
            })
        .join();
    assertThat(seen.get()).isInstanceOf(ConflictException.class);
  }

  @Test
  void asyncWithResponseCarriesTheRequestId() throws Exception {
    server.enqueue(fixture(200, "escalation.json"));

    ApiResponse<?> r =
        client
            .async()
            .escalations()
            .getWithResponse("esc_01", RequestOptions.none())
            .get(5, TimeUnit.SECONDS);

    assertThat(r.requestId()).isEqualTo("req_fixture_200");
  }

  @Test
  void cancellingTheFutureCancelsTheHttpCall() throws Exception {
    server.enqueue(
        new MockResponse.Builder(fixture(200, "bundle.json"))
            .headersDelay(10, TimeUnit.SECONDS)
            .build());

    CompletableFuture<?> f = client.async().bundles().get("support-bot-default");
    take();
    f.cancel(true);

    assertThat(f).isCancelled();
    assertThat(client.okHttpClient().dispatcher().runningCalls())
        .allMatch(okhttp3.Call::isCanceled);
  }

  @Test
  void asyncTimeoutFailsWithRequestTimeout() {
    server.enqueue(
        new MockResponse.Builder(fixture(200, "tombstone-page.json"))
            .headersDelay(3, TimeUnit.SECONDS)
            .build());

    assertThatThrownBy(
            () ->
                client
                    .async()
                    .tombstones()
                    .list(
                        ListParams.none(),
                        RequestOptions.builder().timeout(Duration.ofMillis(100)).build())
                    .get(5, TimeUnit.SECONDS))
        .cause()
        .isInstanceOf(RequestTimeoutException.class);
  }

  @Test
  void everyAsyncServiceReachesItsEndpoint() throws Exception {
    server.enqueue(fixture(200, "confirmation-approved.json"));
    server.enqueue(fixture(200, "workspace-keys.json"));
    server.enqueue(fixture(201, "tombstone.json"));
    server.enqueue(fixture(200, "receipt-page-2.json"));

    assertThat(
            client
                .async()
                .confirmations()
                .approve("cn_abc")
                .get(5, TimeUnit.SECONDS)
                .authorizationId())
        .isEqualTo("cauth_01");
    assertThat(client.async().workspaces().keys("ws_acme").get(5, TimeUnit.SECONDS).keys())
        .hasSize(2);
    assertThat(client.async().tombstones().create("mailbox:42").get(5, TimeUnit.SECONDS).reason())
        .isEqualTo("account closed");
    assertThat(client.async().receipts().list().get(5, TimeUnit.SECONDS).hasMore()).isFalse();
  }
}
