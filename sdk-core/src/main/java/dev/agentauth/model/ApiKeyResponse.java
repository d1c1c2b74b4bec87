package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The 201 body of the admin endpoint {@code POST /admin/v1/workspaces/{id}/api-keys}. The secret is
 * shown only once; the server keeps only its hash.
 *
 * @param apiKey {@code sk_<base64url>}
 */
public record ApiKeyResponse(
    @JsonProperty("workspace_id") String workspaceId, @JsonProperty("api_key") String apiKey) {

  /** Keeps the secret out of logs. */
  @Override
  public String toString() {
    return "ApiKeyResponse[workspaceId=" + workspaceId + ", apiKey=<redacted>]";
  }
}
