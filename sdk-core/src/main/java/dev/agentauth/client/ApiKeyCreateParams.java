package dev.agentauth.client;

import dev.agentauth.client.internal.Validation;
import dev.agentauth.model.ApiKeyRole;
import dev.agentauth.model.CreateApiKeyRequest;
import java.time.Instant;
import java.util.Objects;

/**
 * A validated {@code POST /v1/api-keys} body: the new key's role, and optionally a name and an
 * expiry. Give each integration the least role it needs: an MCP tool server or agent runtime {@code
 * agent} ({@code tool_server} only for a tool server that relays the user's own answer from the
 * user's client, never one whose outbound calls a model can steer), the application that grants and
 * confirms {@code app}, approvers {@code approver} (with their approver id), auditors {@code
 * auditor}.
 *
 * <pre>{@code
 * ApiKey key = client.apiKeys().create(
 *     ApiKeyCreateParams.of(ApiKeyRole.AGENT).withName("mcp-prod"));
 * String secret = key.apiKey(); // shown only now
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 */
public final class ApiKeyCreateParams {
  private static final int MAX_NAME = 100;
  private static final int MAX_TARGETS = 100;
  private static final int MAX_TARGET = 256;

  private final CreateApiKeyRequest body;

  private ApiKeyCreateParams(CreateApiKeyRequest body) {
    this.body = body;
  }

  /**
   * Returns the parameters of a key with {@code role}; for {@code approver} use {@link
   * #approver(String)}.
   *
   * @throws IllegalArgumentException if {@code role} is {@code approver}, which needs an approver
   *     id
   */
  public static ApiKeyCreateParams of(ApiKeyRole role) {
    Objects.requireNonNull(role, "role");
    if (role.equals(ApiKeyRole.APPROVER)) {
      throw new IllegalArgumentException(
          "an approver key needs its approver id: use ApiKeyCreateParams.approver(approverId)");
    }
    return new ApiKeyCreateParams(new CreateApiKeyRequest(role, null, null, null));
  }

  /**
   * Returns the parameters of an {@code approver} key that resolves escalations as {@code
   * approverId} (recorded in every resolution receipt it makes).
   *
   * @param approverId the approver's opaque id, never an e-mail address or name
   * @throws IllegalArgumentException if {@code approverId} is blank or a raw e-mail address
   */
  public static ApiKeyCreateParams approver(String approverId) {
    Validation.opaqueId(approverId, "approver_id");
    return new ApiKeyCreateParams(
        new CreateApiKeyRequest(ApiKeyRole.APPROVER, null, approverId, null));
  }

  /**
   * Returns a copy with a name (1–100 characters) to recognise the key by in listings.
   *
   * @throws IllegalArgumentException if {@code name} is empty or longer than 100 characters
   */
  public ApiKeyCreateParams withName(String name) {
    Objects.requireNonNull(name, "name");
    if (name.isEmpty() || name.length() > MAX_NAME) {
      throw new IllegalArgumentException(
          "expected a name of 1-" + MAX_NAME + " characters, found " + name.length());
    }
    return new ApiKeyCreateParams(
        new CreateApiKeyRequest(
            body.role(), name, body.approverId(), body.expiresAt(), body.targets()));
  }

  /** Returns a copy whose key stops working at {@code expiresAt} (which must be in the future). */
  public ApiKeyCreateParams withExpiresAt(Instant expiresAt) {
    Objects.requireNonNull(expiresAt, "expiresAt");
    return new ApiKeyCreateParams(
        new CreateApiKeyRequest(
            body.role(), body.name(), body.approverId(), expiresAt, body.targets()));
  }

  /**
   * Returns a copy of these {@code approver} parameters whose key resolves only escalations whose
   * {@code escalation_to} is one of {@code targets} (the labels of the authorizations' {@code
   * escalation_targets}); the service answers 403 when the key tries to resolve any other.
   *
   * @param targets 1–100 labels, each 1–256 characters without control characters
   * @throws IllegalArgumentException if these are not approver parameters, or {@code targets} is
   *     empty, too long, or holds an invalid label
   */
  public ApiKeyCreateParams withTargets(java.util.List<String> targets) {
    Objects.requireNonNull(targets, "targets");
    if (!ApiKeyRole.APPROVER.equals(body.role())) {
      throw new IllegalArgumentException(
          "targets are only for approver keys: use ApiKeyCreateParams.approver(approverId)");
    }
    if (targets.isEmpty() || targets.size() > MAX_TARGETS) {
      throw new IllegalArgumentException(
          "expected 1-" + MAX_TARGETS + " targets, found " + targets.size());
    }
    for (String t : targets) {
      Objects.requireNonNull(t, "a target");
      if (t.isEmpty() || t.length() > MAX_TARGET || t.chars().anyMatch(Character::isISOControl)) {
        throw new IllegalArgumentException(
            "expected each target to be 1-"
                + MAX_TARGET
                + " characters without control characters");
      }
    }
    return new ApiKeyCreateParams(
        new CreateApiKeyRequest(
            body.role(),
            body.name(),
            body.approverId(),
            body.expiresAt(),
            java.util.List.copyOf(targets)));
  }

  /** Returns the request body sent to the service. */
  public CreateApiKeyRequest body() {
    return body;
  }

  @Override
  public String toString() {
    return "ApiKeyCreateParams{" + body + "}";
  }
}
