package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;

/**
 * One event sent (or to be sent) to one webhook, and how its attempts went.
 *
 * @param eventId the event's id ({@code evt_...}), the same in every attempt
 * @param eventType its type ({@link WebhookEventType})
 * @param status {@code pending} (more attempts to come), {@code delivered} (a 2xx answered), {@code
 *     failed} (no 2xx within 24 hours) or {@code cancelled} (an expiry whose escalation was
 *     resolved first)
 * @param attempts attempts made so far
 * @param createdAt when the event happened
 * @param nextAttemptAt when the next attempt is due; null unless pending
 * @param lastAttemptAt when the last attempt was made; null before the first
 * @param lastStatusCode the HTTP status the last attempt got; null if it got none
 * @param lastError what went wrong in the last attempt (connection, timeout, refused target), or
 *     null
 * @param deliveredAt when a 2xx answered, or null
 */
public record WebhookDelivery(
    @JsonProperty("event_id") String eventId,
    @JsonProperty("event_type") String eventType,
    @JsonProperty("status") String status,
    @JsonProperty("attempts") int attempts,
    @JsonProperty("created_at") Instant createdAt,
    @JsonProperty("next_attempt_at") Instant nextAttemptAt,
    @JsonProperty("last_attempt_at") Instant lastAttemptAt,
    @JsonProperty("last_status_code") Integer lastStatusCode,
    @JsonProperty("last_error") String lastError,
    @JsonProperty("delivered_at") Instant deliveredAt) {}
