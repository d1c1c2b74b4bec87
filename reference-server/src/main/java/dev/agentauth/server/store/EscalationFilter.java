package dev.agentauth.server.store;

import dev.agentauth.model.EscalationStatus;
import java.time.Instant;

/** Which escalations of a workspace a list returns: those in {@code status} at {@code now}. */
public record EscalationFilter(String workspaceId, EscalationStatus.Known status, Instant now) {}
