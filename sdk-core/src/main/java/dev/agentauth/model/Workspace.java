package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;

/** A workspace: the 201 body of the admin endpoint {@code POST /admin/v1/workspaces}. */
public record Workspace(
    @JsonProperty("workspace_id") String workspaceId,
    @JsonProperty("plan") Plan plan,
    @JsonProperty("created_at") Instant createdAt) {}
