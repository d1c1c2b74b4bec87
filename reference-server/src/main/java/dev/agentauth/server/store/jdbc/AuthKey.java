package dev.agentauth.server.store.jdbc;

/** An authorization's identity within its workspace: a map key for rows kept in memory. */
record AuthKey(String workspaceId, String authorizationId) {}
