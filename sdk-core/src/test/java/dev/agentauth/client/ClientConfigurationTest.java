package dev.agentauth.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.client.internal.Version;
import java.time.Duration;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.Test;

/** Building the client: transport security, secrecy of the API key, headers, sharing. */
class ClientConfigurationTest extends MockServerSupport {

  @Test
  void plainHttpIsRefusedForNonLoopbackHosts() {
    assertThatThrownBy(
            () -> AgentAuthClient.builder().baseUrl("http://agentauth.example.com").build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("refusing plain http for non-loopback host agentauth.example.com");
  }

  @Test
  void plainHttpIsAllowedForLoopbackHosts() {
    for (String url :
        new String[] {
          "http://localhost:8080", "http://127.0.0.1:8080", "http://127.8.9.10", "http://[::1]:8080"
        }) {
      assertThat(AgentAuthClient.builder().baseUrl(url).build().baseUrl().host()).isNotBlank();
    }
  }

  @Test
  void plainHttpIsAllowedWhenExplicitlyAllowed() {
    assertThat(
            AgentAuthClient.builder()
                .baseUrl("http://agentauth.internal")
                .allowInsecureHttp(true)
                .build()
                .baseUrl()
                .isHttps())
        .isFalse();
  }

  @Test
  void hostsThatOnlyLookLikeLoopbackAreNotLoopback() {
    assertThat(AgentAuthClient.Builder.isLoopback("127.0.0.1.evil.com")).isFalse();
    assertThat(AgentAuthClient.Builder.isLoopback("localhost.evil.com")).isFalse();
    assertThat(AgentAuthClient.Builder.isLoopback("128.0.0.1")).isFalse();
    assertThat(AgentAuthClient.Builder.isLoopback("sub.localhost")).isTrue();
  }

  @Test
  void baseUrlMustBeAnHttpUrlWithoutQueryOrCredentials() {
    assertThatThrownBy(() -> AgentAuthClient.builder().baseUrl("ftp://x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("expected an http or https base URL");
    assertThatThrownBy(() -> AgentAuthClient.builder().baseUrl("https://x/?a=b"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> AgentAuthClient.builder().baseUrl("https://user:pw@x/"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageNotContaining("pw");
    assertThatThrownBy(() -> AgentAuthClient.builder().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("expected a base URL");
  }

  @Test
  void apiKeyNeverAppearsInToString() {
    assertThat(client.toString()).doesNotContain(API_KEY).contains("apiKey=[redacted]");
    assertThat(clientBuilder().toString()).doesNotContain(API_KEY);
    assertThat(client.newBuilder().toString()).doesNotContain(API_KEY);
  }

  @Test
  void apiKeyIsRedactedFromExceptionMessagesEvenWhenTheServerEchoesIt() {
    server.enqueue(
        new MockResponse.Builder()
            .code(401)
            .addHeader("Content-Type", "text/plain")
            .body("bad credentials: Bearer " + API_KEY)
            .build());

    assertThatThrownBy(() -> client.tombstones().list())
        .isInstanceOf(AuthenticationException.class)
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain(API_KEY).contains("[redacted]"));
  }

  @Test
  void apiKeyWithWhitespaceIsRejectedWithoutEchoingIt() {
    assertThatThrownBy(() -> AgentAuthClient.builder().apiKey("sk_abc def"))
        .isInstanceOf(IllegalArgumentException.class)
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("sk_abc"));
  }

  @Test
  void everyAuthenticatedRequestCarriesBearerKeyUserAgentAndAccept() throws Exception {
    server.enqueue(fixture(200, "tombstone-page.json"));

    client.tombstones().list();

    RecordedRequest r = take();
    assertThat(r.getHeaders().get("Authorization")).isEqualTo("Bearer " + API_KEY);
    assertThat(r.getHeaders().get("User-Agent"))
        .isEqualTo(Version.userAgent())
        .matches("agentauth-java/(?!unknown)[0-9][^ ]* \\(Java [0-9][^)]*\\)")
        .endsWith("(Java " + System.getProperty("java.version") + ")");
    assertThat(r.getHeaders().get("Accept")).contains("application/problem+json");
  }

  @Test
  void workspaceKeysAreFetchedWithoutTheApiKey() throws Exception {
    server.enqueue(fixture(200, "workspace-keys.json"));

    var keys = client.workspaces().keys("ws_acme");

    assertThat(keys.keys()).hasSize(2);
    RecordedRequest r = take();
    assertThat(r.getUrl().encodedPath()).isEqualTo("/v1/workspaces/ws_acme/keys");
    assertThat(r.getHeaders().get("Authorization")).isNull();
  }

  @Test
  void clientWithoutApiKeyCanFetchKeysButRefusesAuthenticatedCallsBeforeTheNetwork() {
    AgentAuthClient auditor = AgentAuthClient.builder().baseUrl(server.url("/")).build();
    server.enqueue(fixture(200, "workspace-keys.json"));

    assertThat(auditor.workspaces().keys("ws_acme").workspaceId()).isEqualTo("ws_acme");
    assertThatThrownBy(() -> auditor.tombstones().list())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("GET /v1/tombstones needs an API key");
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void baseUrlPathPrefixIsKept() throws Exception {
    AgentAuthClient prefixed = clientBuilder().baseUrl(server.url("/agentauth/")).build();
    server.enqueue(fixture(200, "bundle.json"));

    prefixed.bundles().get("a/b");

    assertThat(take().getUrl().encodedPath()).isEqualTo("/agentauth/v1/agent-scope-bundles/a%2Fb");
  }

  @Test
  void newBuilderSharesTheConnectionPoolAndDispatcher() {
    AgentAuthClient other = client.newBuilder().apiKey("sk_other").maxRetries(0).build();

    assertThat(other.okHttpClient().connectionPool())
        .isSameAs(client.okHttpClient().connectionPool());
    assertThat(other.okHttpClient().dispatcher()).isSameAs(client.okHttpClient().dispatcher());
    assertThat(other.config().maxRetries()).isZero();
    assertThat(client.config().maxRetries()).isEqualTo(2);
  }

  @Test
  void callersOkHttpClientIsSharedNotModified() {
    OkHttpClient mine = new OkHttpClient();
    AgentAuthClient c = clientBuilder().okHttpClient(mine).build();

    assertThat(c.okHttpClient().connectionPool()).isSameAs(mine.connectionPool());
    assertThat(c.okHttpClient()).isNotSameAs(mine);
  }

  @Test
  void extraHeadersAreSentAndAuthorizationCannotBeOverridden() throws Exception {
    server.enqueue(fixture(200, "tombstone-page.json"));

    client
        .tombstones()
        .list(ListParams.none(), RequestOptions.builder().header("X-Trace", "t-1").build());

    assertThat(take().getHeaders().get("X-Trace")).isEqualTo("t-1");
    assertThatThrownBy(() -> RequestOptions.builder().header("authorization", "Bearer x"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> RequestOptions.builder().header("Idempotency-Key", "k"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("idempotencyKey(...)");
  }

  @Test
  void builderRejectsNonPositiveTimeoutsAndAbsurdRetries() {
    assertThatThrownBy(() -> AgentAuthClient.builder().checkTimeout(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("expected a positive checkTimeout, found: PT0S");
    assertThatThrownBy(() -> AgentAuthClient.builder().maxRetries(11))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> RequestOptions.builder().timeout(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
