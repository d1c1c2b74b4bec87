package dev.agentauth.server.store;

import java.time.Instant;

/** A permanent block on one exact resource string within a workspace. */
public record TombstoneRow(String workspaceId, String resource, String reason, Instant createdAt) {}
