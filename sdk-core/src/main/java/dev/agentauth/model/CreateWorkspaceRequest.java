package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Body of the admin endpoint {@code POST /admin/v1/workspaces}. {@code null} members mean absent
 * and are omitted when written.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CreateWorkspaceRequest(
    @JsonProperty("workspace_id") String workspaceId, @JsonProperty("plan") Plan plan) {}
