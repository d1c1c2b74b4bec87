package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * An RFC 9457 problem-details error body ({@code application/problem+json}), returned by every
 * endpoint on failure. {@code code} is the stable machine-readable field; {@code errors} is present
 * only on validation failures and {@code detail} only when the server has one.
 *
 * @param type {@code /errors/<code>}
 * @param status the HTTP status, repeated
 * @param requestId equals the response's {@code X-Request-Id} header
 * @param errors field-level validation errors, or {@code null} (omitted) when not a validation
 *     failure
 */
public record Problem(
    @JsonProperty("type") String type,
    @JsonProperty("title") String title,
    @JsonProperty("status") int status,
    @JsonProperty("detail") @JsonInclude(JsonInclude.Include.NON_NULL) String detail,
    @JsonProperty("code") String code,
    @JsonProperty("request_id") String requestId,
    @JsonProperty("errors") @JsonInclude(JsonInclude.Include.NON_NULL) List<FieldError> errors) {

  /** Copies {@code errors}; {@code null} stays {@code null}. */
  public Problem {
    errors = Copies.list(errors);
  }
}
