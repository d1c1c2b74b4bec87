package dev.agentauth.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.client.internal.Endpoints;
import dev.agentauth.client.internal.Transport;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.Test;

/** decisions §13: timeouts are on by default, finite, and the check has its own short one. */
class TimeoutTest extends MockServerSupport {

  @Test
  void defaultsAreConnect5sRequest10sCheck1s() {
    AgentAuthClient c = AgentAuthClient.builder().baseUrl("https://agentauth.example.com").build();
    Transport t = new Transport(c.config());

    assertThat(c.okHttpClient().connectTimeoutMillis()).isEqualTo(5_000);
    assertThat(t.defaultTimeout(Endpoints.getBundle("b"))).isEqualTo(Duration.ofSeconds(10));
    assertThat(t.defaultTimeout(Endpoints.check(emailCheck()))).isEqualTo(Duration.ofSeconds(1));
    assertThat(c.config().maxRetries()).isEqualTo(2);
  }

  @Test
  void waitForReceiptAddsFiveSecondsToTheCheckTimeout() {
    Transport t = new Transport(client.config());
    CheckParams waiting =
        CheckParams.builder().authorizationId("a").scope("s").waitForReceipt(true).build();

    assertThat(t.defaultTimeout(Endpoints.check(waiting))).isEqualTo(Duration.ofSeconds(6));
  }

  @Test
  void callersInfiniteConnectTimeoutIsReplacedAndAFiniteOneKept() {
    OkHttpClient infinite = new OkHttpClient.Builder().connectTimeout(0, TimeUnit.SECONDS).build();
    OkHttpClient twoSeconds =
        new OkHttpClient.Builder().connectTimeout(2, TimeUnit.SECONDS).build();

    assertThat(clientBuilder().okHttpClient(infinite).build().okHttpClient().connectTimeoutMillis())
        .isEqualTo(5_000);
    assertThat(
            clientBuilder().okHttpClient(twoSeconds).build().okHttpClient().connectTimeoutMillis())
        .isEqualTo(2_000);
    assertThat(
            clientBuilder()
                .okHttpClient(twoSeconds)
                .connectTimeout(Duration.ofMillis(700))
                .build()
                .okHttpClient()
                .connectTimeoutMillis())
        .isEqualTo(700);
  }

  @Test
  void slowAnswerBeyondTheRequestTimeoutThrowsRequestTimeout() {
    AgentAuthClient c = clientBuilder().requestTimeout(Duration.ofMillis(150)).build();
    server.enqueue(
        new MockResponse.Builder(fixture(200, "bundle.json"))
            .headersDelay(2, TimeUnit.SECONDS)
            .build());

    assertThatThrownBy(() -> c.bundles().get("support-bot-default"))
        .isInstanceOf(RequestTimeoutException.class)
        .hasMessage("GET /v1/agent-scope-bundles/{id} timed out: no complete answer within 150 ms");
  }

  @Test
  void slowBodyBeyondThePerCallTimeoutThrowsRequestTimeout() {
    server.enqueue(
        new MockResponse.Builder(fixture(200, "bundle.json"))
            .bodyDelay(2, TimeUnit.SECONDS)
            .build());

    assertThatThrownBy(
            () ->
                client
                    .bundles()
                    .get(
                        "support-bot-default",
                        RequestOptions.builder().timeout(Duration.ofMillis(120)).build()))
        .isInstanceOf(RequestTimeoutException.class)
        .hasMessageContaining("within 120 ms");
  }

  @Test
  void perCallTimeoutReplacesTheCheckTimeout() {
    server.enqueue(
        new MockResponse.Builder(fixture(200, "check-mixed.json"))
            .headersDelay(300, TimeUnit.MILLISECONDS)
            .build());
    AgentAuthClient strict =
        clientBuilder()
            .checkTimeout(Duration.ofMillis(50))
            .fallback(FallbackPolicy.disabled())
            .build();

    var r =
        strict.check(
            CheckParams.of("auth_01", "crm.read"),
            RequestOptions.builder().timeout(Duration.ofSeconds(5)).build());

    assertThat(r.policyVersion()).isEqualTo("2026-11-21.1");
  }
}
