package dev.agentauth.spring.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import org.junit.jupiter.api.Test;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.mock.env.MockEnvironment;

/** The embedded server's lifecycle and its errors, outside Spring. */
class EmbeddedAgentAuthTest {
  @Test
  void aGrantWithoutAnAgentIdSaysWhichPropertyToSet() {
    EmbeddedAgentAuth bare = new EmbeddedAgentAuth(new StandardEnvironment());
    assertThatThrownBy(() -> bare.grant("alice"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("agentauth.mcp.agent-id")
        .hasMessageContaining("spring.application.name");
    bare.close();
  }

  @Test
  void anUnknownRoleIsReportedWithTheProperty() {
    EmbeddedAgentAuth bad =
        new EmbeddedAgentAuth(
            new MockEnvironment().withProperty(EmbeddedAgentAuth.ROLE_PROPERTY, "superuser"));
    try {
      assertThatThrownBy(bad::applicationKey)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageStartingWith("agentauth.test.api-key-role=superuser");
    } finally {
      bad.close();
    }
  }

  @Test
  void closingStopsTheServerForGood() throws Exception {
    EmbeddedAgentAuth agentAuth = new EmbeddedAgentAuth(new MockEnvironment());
    URI health = URI.create(agentAuth.baseUrl() + "/healthz");
    HttpClient http = HttpClient.newHttpClient();
    assertThat(
            http.send(HttpRequest.newBuilder(health).build(), BodyHandlers.discarding())
                .statusCode())
        .isEqualTo(200);

    agentAuth.close();

    assertThatThrownBy(
            () -> http.send(HttpRequest.newBuilder(health).build(), BodyHandlers.discarding()))
        .isInstanceOf(IOException.class);
    assertThatThrownBy(agentAuth::server).hasMessageContaining("stopped with its context");
  }
}
