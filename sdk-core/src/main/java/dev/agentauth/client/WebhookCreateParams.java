package dev.agentauth.client;

import dev.agentauth.model.CreateWebhookRequest;
import dev.agentauth.model.WebhookEventType;
import java.net.URI;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A validated {@code POST /v1/webhooks} body: where to send events, and which.
 *
 * <pre>{@code
 * Webhook hook = client.webhooks().create(
 *     WebhookCreateParams.of("https://hooks.example.com/agentauth",
 *         WebhookEventType.ESCALATION_CREATED, WebhookEventType.ESCALATION_RESOLVED));
 * String secret = hook.secret(); // shown only now: give it to the receiver
 * }</pre>
 *
 * <p>The service checks the target too: {@code https://}, resolving to public addresses only.
 * Immutable and thread-safe.
 */
public final class WebhookCreateParams {
  private final CreateWebhookRequest body;

  private WebhookCreateParams(CreateWebhookRequest body) {
    this.body = body;
  }

  /**
   * Returns the parameters of a webhook at {@code url} receiving {@code events}.
   *
   * @throws IllegalArgumentException if {@code url} is not an absolute http(s) URL, or {@code
   *     events} is empty, repeats a type or names an unknown one
   */
  public static WebhookCreateParams of(String url, String... events) {
    return of(url, List.of(events));
  }

  /** {@link #of(String, String...)} with the events as a list. */
  public static WebhookCreateParams of(String url, List<String> events) {
    Objects.requireNonNull(url, "url");
    Objects.requireNonNull(events, "events");
    URI uri;
    try {
      uri = URI.create(url);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("url must be an absolute https:// URL, got " + url, e);
    }
    String scheme = uri.getScheme();
    if (!uri.isAbsolute()
        || uri.getHost() == null
        || !("https".equalsIgnoreCase(scheme) || "http".equalsIgnoreCase(scheme))) {
      throw new IllegalArgumentException("url must be an absolute https:// URL, got " + url);
    }
    if (events.isEmpty()) {
      throw new IllegalArgumentException(
          "events must name at least one of " + WebhookEventType.ALL);
    }
    Set<String> seen = new LinkedHashSet<>();
    for (String e : events) {
      if (!WebhookEventType.ALL.contains(e)) {
        throw new IllegalArgumentException(
            "events must be among " + WebhookEventType.ALL + ", got " + e);
      }
      if (!seen.add(e)) {
        throw new IllegalArgumentException("events lists " + e + " twice");
      }
    }
    return new WebhookCreateParams(new CreateWebhookRequest(url, List.copyOf(seen)));
  }

  /** The request body as sent. */
  public CreateWebhookRequest body() {
    return body;
  }
}
