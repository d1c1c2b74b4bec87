package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Body of {@code POST /v1/confirmations/{nonce}}; send only after explicit end-user input. {@code
 * null} members mean absent and are omitted when written.
 *
 * @param approved required: whether the end-user approved
 * @param ttlSeconds how long the approval stays valid for re-checks (server default 60, max 300)
 * @param via where the user's answer came from (server default {@code api})
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ConfirmationRequest(
    @JsonProperty("approved") Boolean approved,
    @JsonProperty("ttl_seconds") Long ttlSeconds,
    @JsonProperty("via") ConfirmationVia via) {

  /** A request with no {@code via} (the server records {@code api}). */
  public ConfirmationRequest(Boolean approved, Long ttlSeconds) {
    this(approved, ttlSeconds, null);
  }
}
