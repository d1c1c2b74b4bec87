package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.util.List;

/**
 * Body of {@code POST /v1/api-keys} and {@code POST /admin/v1/workspaces/{id}/api-keys}. Every
 * member is optional, except {@code approverId} for the {@code approver} role (and only there).
 * {@code null} members mean absent and are omitted when written.
 *
 * @param role what the key may call; {@code full} when absent
 * @param name 1–100 characters, to recognise the key in listings
 * @param approverId the id an {@code approver} key resolves escalations under (same rules as {@code
 *     resolved_by})
 * @param expiresAt when the key stops working; must be in the future
 * @param targets for an {@code approver} key only: the {@code escalation_to} labels it may resolve
 *     (1–100 labels of 1–256 characters without control characters); absent for a key that resolves
 *     every escalation of the workspace
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CreateApiKeyRequest(
    @JsonProperty("role") ApiKeyRole role,
    @JsonProperty("name") String name,
    @JsonProperty("approver_id") String approverId,
    @JsonProperty("expires_at") Instant expiresAt,
    @JsonProperty("targets") List<String> targets) {

  /** A request without {@code targets}. */
  public CreateApiKeyRequest(ApiKeyRole role, String name, String approverId, Instant expiresAt) {
    this(role, name, approverId, expiresAt, null);
  }
}
