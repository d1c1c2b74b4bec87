package dev.agentauth.client;

import java.time.Duration;

/**
 * {@link ReceiptService#awaitSigned(String, Duration)} gave up: the receipt was still pending when
 * its timeout ran out. The receipt is not lost (signing is durable); poll again later.
 */
public class ReceiptWaitTimeoutException extends AgentAuthException {
  private static final long serialVersionUID = 1L;

  private final String receiptId;
  private final Duration timeout;

  /**
   * Creates the exception.
   *
   * @param receiptId the receipt that is still pending
   * @param timeout how long the caller was willing to wait
   * @param requestId the {@code X-Request-Id} of the last poll, or {@code null}
   */
  public ReceiptWaitTimeoutException(String receiptId, Duration timeout, String requestId) {
    super(
        "receipt " + receiptId + " was still pending after waiting " + timeout + " for signing",
        requestId,
        null);
    this.receiptId = receiptId;
    this.timeout = timeout;
  }

  /** Returns the id of the receipt that is still pending. */
  public String receiptId() {
    return receiptId;
  }

  /** Returns the timeout that ran out. */
  public Duration timeout() {
    return timeout;
  }
}
