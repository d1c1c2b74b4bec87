package dev.agentauth.server.store;

import java.time.Instant;

/** A workspace: the tenant every other row belongs to. */
public record WorkspaceRow(String workspaceId, String plan, Instant createdAt) {}
