package dev.agentauth.client;

/**
 * A webhook request failed {@link Webhooks#verify}: its message names the step (header form,
 * timestamp window, signature). Answer such a request with 400 and do not act on it.
 */
public final class WebhookVerificationException extends AgentAuthException {
  private static final long serialVersionUID = 1L;

  WebhookVerificationException(String message) {
    super(message, null, null);
  }
}
