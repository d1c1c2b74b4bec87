package dev.agentauth.server.store;

import java.time.Instant;

/** An API key, stored only as the SHA-256 hash (hex) of its secret. */
public record ApiKeyRow(String keyHash, String workspaceId, Instant createdAt) {}
