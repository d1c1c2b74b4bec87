package dev.agentauth.client;

import dev.agentauth.client.internal.Validation;
import dev.agentauth.model.RevokeAuthorizationRequest;

/**
 * Optional details of {@code DELETE /v1/authorizations/{id}}: who revoked ({@code revoked_by}, an
 * opaque actor id; the service defaults it to {@code api_key}) and free-text {@code notes}, both
 * recorded in the revocation receipt.
 *
 * <pre>{@code
 * client.authorizations().revoke(authId,
 *     AuthorizationRevokeParams.builder().revokedBy("admin_17").notes("user left").build());
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 */
public final class AuthorizationRevokeParams {
  private static final AuthorizationRevokeParams NONE = new AuthorizationRevokeParams(null, false);

  private final RevokeAuthorizationRequest body;
  private final boolean waitForReceipt;

  private AuthorizationRevokeParams(RevokeAuthorizationRequest body, boolean waitForReceipt) {
    this.body = body;
    this.waitForReceipt = waitForReceipt;
  }

  /** Returns parameters that send no body: the service records {@code revoked_by: api_key}. */
  public static AuthorizationRevokeParams none() {
    return NONE;
  }

  /** Returns an empty builder. */
  public static Builder builder() {
    return new Builder();
  }

  /** Returns the request body, or {@code null} when none is sent. */
  public RevokeAuthorizationRequest body() {
    return body;
  }

  /** Returns whether the call asks for the signed revocation receipt ({@code ?wait=true}). */
  public boolean waitForReceipt() {
    return waitForReceipt;
  }

  @Override
  public String toString() {
    return "AuthorizationRevokeParams{" + body + ", waitForReceipt=" + waitForReceipt + "}";
  }

  /** Builder of {@link AuthorizationRevokeParams}. Not thread-safe. */
  public static final class Builder {
    private String revokedBy;
    private String notes;
    private boolean waitForReceipt;

    private Builder() {}

    /** Sets the opaque actor id recorded as {@code revoked_by}; never a raw e-mail address. */
    public Builder revokedBy(String revokedBy) {
      this.revokedBy = revokedBy;
      return this;
    }

    /** Sets free-text {@code notes} recorded in the revocation receipt. */
    public Builder notes(String notes) {
      this.notes = notes;
      return this;
    }

    /** Asks the service to wait up to 5 s for the signed revocation receipt. */
    public Builder waitForReceipt(boolean waitForReceipt) {
      this.waitForReceipt = waitForReceipt;
      return this;
    }

    /**
     * Returns the validated parameters.
     *
     * @throws IllegalArgumentException if {@code revoked_by} is blank or a raw e-mail address
     */
    public AuthorizationRevokeParams build() {
      if (revokedBy != null) {
        Validation.opaqueId(revokedBy, "revoked_by");
      }
      RevokeAuthorizationRequest body =
          revokedBy == null && notes == null
              ? null
              : new RevokeAuthorizationRequest(revokedBy, notes);
      return new AuthorizationRevokeParams(body, waitForReceipt);
    }
  }
}
