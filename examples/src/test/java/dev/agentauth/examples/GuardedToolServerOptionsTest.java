package dev.agentauth.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.examples.GuardedToolServer.Options;
import dev.agentauth.examples.GuardedToolServer.Transport;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GuardedToolServerOptionsTest {

  @Test
  void defaultsToStdioWithAnEmbeddedServer() {
    Options o = Options.parse(List.of(), Map.of());

    assertThat(o.transport()).isEqualTo(Transport.STDIO);
    assertThat(o.agentAuthUrl()).isNull();
    assertThat(o.apiKey()).isNull();
    assertThat(o.grants()).isEmpty();
    assertThat(o.port()).isEqualTo(8080);
    assertThat(o.elicitation()).isFalse();
  }

  @Test
  void readsEveryOptionInBothSpellings() {
    Options o =
        Options.parse(
            List.of(
                "--transport=http",
                "--host",
                "0.0.0.0",
                "--port",
                "0",
                "--agentauth-url",
                "https://agentauth.example.com",
                "--api-key=sk_x",
                "--grant",
                "u1=auth_1",
                "--grant=u2=auth=2",
                "--elicitation"),
            Map.of());

    assertThat(o.transport()).isEqualTo(Transport.HTTP);
    assertThat(o.host()).isEqualTo("0.0.0.0");
    assertThat(o.port()).isZero();
    assertThat(o.agentAuthUrl()).isEqualTo("https://agentauth.example.com");
    assertThat(o.apiKey()).isEqualTo("sk_x");
    assertThat(o.grants()).containsExactly(Map.entry("u1", "auth_1"), Map.entry("u2", "auth=2"));
    assertThat(o.elicitation()).isTrue();
  }

  @Test
  void theEnvironmentStandsInForMissingServiceOptions() {
    Map<String, String> env =
        Map.of("AGENTAUTH_URL", "https://a.example", "AGENTAUTH_API_KEY", "k");

    Options fromEnv = Options.parse(List.of(), env);
    Options overridden = Options.parse(List.of("--agentauth-url", "https://b.example"), env);

    assertThat(fromEnv.agentAuthUrl()).isEqualTo("https://a.example");
    assertThat(fromEnv.apiKey()).isEqualTo("k");
    assertThat(overridden.agentAuthUrl()).isEqualTo("https://b.example");
    assertThat(overridden.apiKey()).isEqualTo("k");
  }

  @Test
  void rejectsWrongCommandLines() {
    assertThatThrownBy(() -> Options.parse(List.of("--transport", "sse"), Map.of()))
        .hasMessageContaining("stdio or http");
    assertThatThrownBy(() -> Options.parse(List.of("--port", "70000"), Map.of()))
        .hasMessageContaining("--port");
    assertThatThrownBy(() -> Options.parse(List.of("--grant", "nobody"), Map.of()))
        .hasMessageContaining("USER=AUTHORIZATION_ID");
    assertThatThrownBy(() -> Options.parse(List.of("--agentauth-url", "https://x"), Map.of()))
        .hasMessageContaining("--api-key");
    assertThatThrownBy(() -> Options.parse(List.of("--api-key", "k"), Map.of()))
        .hasMessageContaining("--agentauth-url");
    assertThatThrownBy(() -> Options.parse(List.of("--port"), Map.of()))
        .hasMessageContaining("needs a value");
    assertThatThrownBy(() -> Options.parse(List.of("--elicitation=yes"), Map.of()))
        .hasMessageContaining("--elicitation takes no value");
    assertThatThrownBy(() -> Options.parse(List.of("--verbose"), Map.of()))
        .hasMessageContaining("unknown option");
  }
}
