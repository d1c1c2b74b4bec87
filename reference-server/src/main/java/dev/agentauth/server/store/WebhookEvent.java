package dev.agentauth.server.store;

import java.time.Instant;

/**
 * An event for the outbox: the store writes one delivery of it for every webhook of {@code
 * workspaceId} subscribed to {@code type}, in the transaction that caused it.
 *
 * @param payload the body to send; null when it is built when sent ({@code escalation.expired},
 *     from the escalation {@code subjectId} as it is then)
 * @param authorizationId the authorization the event concerns, if any (an authorization's
 *     revocation brings its escalations' expiry events forward)
 * @param subjectId the escalation of an escalation event, else null
 * @param dueAt when the first attempt is due
 */
public record WebhookEvent(
    String workspaceId,
    String eventId,
    String type,
    Instant createdAt,
    String payload,
    String authorizationId,
    String subjectId,
    Instant dueAt) {}
