package dev.agentauth.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.server.ServerHarness.Resp;
import org.junit.jupiter.api.Test;

class SmokeIT {

  @Test
  void createCheckAndVerifyChainEndToEnd() {
    try (ServerHarness h = ServerHarness.start()) {
      Resp a =
          h.post(
              "/v1/authorizations",
              h.json(
                  """
                  {"user_id":"u1","agent_id":"a1","scopes":[{"name":"email.send"}],
                   "expires_at":"2026-11-23T10:00:00Z"}"""));
      assertThat(a.status()).as(a.raw()).isEqualTo(201);
      String id = a.body().path("authorization_id").asText();
      Resp c =
          h.post(
              "/v1/check?wait=true",
              h.json("{\"authorization_id\":\"" + id + "\",\"scopes\":[\"email.send\"]}"));
      assertThat(c.status()).as(c.raw()).isEqualTo(200);
      assertThat(c.body().at("/results/email.send/decision").asText()).isEqualTo("allow");
      assertThat(h.verifyChain(id)).isEqualTo(2);
    }
  }
}
