package dev.agentauth.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.model.Webhook;
import dev.agentauth.model.WebhookDeliveryPage;
import dev.agentauth.model.WebhookEventType;
import java.nio.charset.StandardCharsets;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.Test;

/**
 * {@code client.webhooks()}: request shapes, creation sent once without an Idempotency-Key, the
 * secret kept out of {@code toString}, and parameters checked before sending.
 */
class WebhookServiceTest extends MockServerSupport {
  private static final String SECRET = "whsec_" + "B".repeat(43);
  private static final String CREATED =
      "{\"id\":\"wh_01\",\"url\":\"https://hooks.example.com/a\","
          + "\"events\":[\"escalation.created\"],\"secret\":\""
          + SECRET
          + "\",\"created_at\":\"2026-11-22T10:00:00Z\"}";

  @Test
  void createSendsUrlAndEventsOnceWithoutAnIdempotencyKey() throws Exception {
    server.enqueue(json(201, CREATED));

    Webhook w =
        client
            .webhooks()
            .create(
                WebhookCreateParams.of(
                    "https://hooks.example.com/a", WebhookEventType.ESCALATION_CREATED));

    RecordedRequest r = take();
    assertThat(r.getMethod()).isEqualTo("POST");
    assertThat(r.getTarget()).isEqualTo("/v1/webhooks");
    assertThat(r.getHeaders().get("Idempotency-Key")).isNull();
    assertThat(r.getBody().string(StandardCharsets.UTF_8))
        .isEqualTo("{\"url\":\"https://hooks.example.com/a\",\"events\":[\"escalation.created\"]}");
    assertThat(w.secret()).isEqualTo(SECRET);
    assertThat(w.toString()).doesNotContain(SECRET).contains("<redacted>");
  }

  @Test
  void createIsNeverRetriedEvenOnA503() throws Exception {
    server.enqueue(problem(503, "unavailable"));
    server.enqueue(json(201, CREATED));
    assertThatThrownBy(
            () ->
                client
                    .webhooks()
                    .create(
                        WebhookCreateParams.of(
                            "https://hooks.example.com/a", WebhookEventType.ESCALATION_CREATED)))
        .isInstanceOf(ServerException.class);
    take();
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void listDeleteAndDeliveriesUseTheirPaths() throws Exception {
    server.enqueue(json(200, "{\"webhooks\":[]}"));
    server.enqueue(json(200, CREATED.replace("\"secret\":\"" + SECRET + "\",", "")));
    server.enqueue(
        json(
            200,
            "{\"deliveries\":[{\"event_id\":\"evt_1\",\"event_type\":\"escalation.created\","
                + "\"status\":\"pending\",\"attempts\":2,\"created_at\":\"2026-11-22T10:00:00Z\","
                + "\"next_attempt_at\":\"2026-11-22T10:01:00Z\",\"last_attempt_at\":null,"
                + "\"last_status_code\":500,\"last_error\":\"answered 500\","
                + "\"delivered_at\":null}],\"has_more\":false,\"next_cursor\":null}"));

    assertThat(client.webhooks().list().webhooks()).isEmpty();
    assertThat(take().getTarget()).isEqualTo("/v1/webhooks");
    assertThat(client.webhooks().delete("wh_01").secret()).isNull();
    RecordedRequest deleted = take();
    assertThat(deleted.getMethod()).isEqualTo("DELETE");
    assertThat(deleted.getTarget()).isEqualTo("/v1/webhooks/wh_01");
    WebhookDeliveryPage page = client.webhooks().deliveries("wh_01");
    assertThat(take().getTarget()).isEqualTo("/v1/webhooks/wh_01/deliveries");
    assertThat(page.deliveries().get(0).attempts()).isEqualTo(2);
    assertThat(page.deliveries().get(0).lastStatusCode()).isEqualTo(500);
  }

  @Test
  void paramsAreCheckedBeforeSending() {
    assertThatThrownBy(() -> WebhookCreateParams.of("hooks.example.com", "escalation.created"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> WebhookCreateParams.of("https://hooks.example.com"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> WebhookCreateParams.of("https://h.example", "nope"))
        .hasMessageContaining("nope");
    assertThatThrownBy(
            () ->
                WebhookCreateParams.of(
                    "https://h.example", "escalation.created", "escalation.created"))
        .hasMessageContaining("twice");
    assertThat(server.getRequestCount()).isZero();
  }
}
