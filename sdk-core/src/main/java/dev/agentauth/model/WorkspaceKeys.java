package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * The keys document of {@code GET /v1/workspaces/{workspace_id}/keys} (public, no API key): current
 * and retired public keys, needed to verify receipts offline.
 */
public record WorkspaceKeys(
    @JsonProperty("workspace_id") String workspaceId,
    @JsonProperty("keys") List<WorkspaceKey> keys) {

  /** Copies {@code keys}; {@code null} becomes empty. */
  public WorkspaceKeys {
    keys = Copies.listOrEmpty(keys);
  }
}
