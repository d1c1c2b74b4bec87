package dev.agentauth.docs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.AuthorizationCreateParams;
import dev.agentauth.client.CheckParams;
import dev.agentauth.client.WebhookCreateParams;
import dev.agentauth.client.WebhookVerificationException;
import dev.agentauth.client.Webhooks;
import dev.agentauth.model.Webhook;
import dev.agentauth.model.WebhookEventType;
import dev.agentauth.server.AgentAuthServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The Java of docs/webhooks.md, run against an embedded server and a receiver on loopback; each
 * region is the twin of a fence (see {@link DocSnippetsTest}).
 */
class WebhookDocSnippetsTest {
  private final ObjectMapper mapper = new ObjectMapper();
  private final Set<String> seen = ConcurrentHashMap.newKeySet();
  private final BlockingQueue<JsonNode> events = new LinkedBlockingQueue<>();
  private volatile String secret = "whsec_not_yet";

  // spotless:off
  // @start region="receiver"
  void handle(HttpExchange exchange) throws IOException {
    byte[] body = exchange.getRequestBody().readAllBytes(); // raw bytes, before parsing
    String signature = exchange.getRequestHeaders().getFirst(Webhooks.SIGNATURE_HEADER);
    try {
      Webhooks.verify(body, signature, secret, Duration.ofMinutes(5));
    } catch (WebhookVerificationException e) {
      exchange.sendResponseHeaders(400, -1); // not from the service, or replayed late
      exchange.close();
      return;
    }
    JsonNode event = mapper.readTree(body);
    if (seen.add(event.path("id").asText())) { // delivery is at least once
      events.add(event); // work on it later, e.g. page the approver with data.console_url
    }
    exchange.sendResponseHeaders(204, -1); // answer within 10 seconds
    exchange.close();
  }

  // @end region="receiver"
  // spotless:on

  @Test
  void aReceiverVerifiesAndGetsTheEscalation() throws Exception {
    HttpServer receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    receiver.createContext("/agentauth", this::handle);
    receiver.start();
    String hooksUrl = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/agentauth";
    try (AgentAuthServer server =
        AgentAuthServer.builder().webhooksAllowLoopback(true).build().start()) {
      AgentAuthClient client =
          AgentAuthClient.builder().baseUrl(server.baseUrl()).apiKey(server.apiKey()).build();
      // spotless:off
      // @start region="create"
      Webhook hook = client.webhooks().create(
          WebhookCreateParams.of(hooksUrl,
              WebhookEventType.ESCALATION_CREATED, WebhookEventType.ESCALATION_EXPIRED));
      String secret = hook.secret();                       // shown only now
      client.webhooks().deliveries(hook.id()).deliveries() // the delivery log
          .forEach(d -> System.out.println(d.eventType() + " " + d.status()));
      // @end region="create"
      // spotless:on
      this.secret = secret;
      assertThat(client.webhooks().list().webhooks())
          .extracting(Webhook::secret)
          .containsOnly((String) null);

      String auth =
          client
              .authorizations()
              .create(
                  AuthorizationCreateParams.inline()
                      .userId("u_1")
                      .agentId("agent_1")
                      .scope("pay.send")
                      .requiresEscalationFor("pay.send")
                      .expiresAt(Instant.now().plus(Duration.ofHours(1)))
                      .build())
              .authorizationId();
      client.check(CheckParams.of(auth, "pay.send"));
      JsonNode event = events.poll(10, TimeUnit.SECONDS);
      assertThat(event).isNotNull();
      assertThat(event.path("type").asText()).isEqualTo("escalation.created");

      // A request without the right signature is refused and not acted on.
      HttpResponse<String> forged =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create(hooksUrl))
                      .header(Webhooks.SIGNATURE_HEADER, "t=1,v1=" + "0".repeat(64))
                      .POST(HttpRequest.BodyPublishers.ofString("{\"id\":\"evt_forged\"}"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(forged.statusCode()).isEqualTo(400);
      assertThat(events).isEmpty();
    } finally {
      receiver.stop(0);
    }
  }
}
