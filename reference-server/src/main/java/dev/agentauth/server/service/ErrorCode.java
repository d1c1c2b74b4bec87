package dev.agentauth.server.service;

/**
 * Every error the service answers with: its HTTP status and its problem+json {@code code}. The one
 * list of codes (service.md's error table and decisions.md §16); {@code http} maps a {@link
 * ServiceException} to problem+json from it and nothing else.
 */
public enum ErrorCode {
  INVALID_REQUEST(400, "invalid_request"),
  PII_NOT_ALLOWED(400, "pii_not_allowed"),
  BUNDLE_NOT_FOUND(400, "bundle_not_found"),
  UNAUTHENTICATED(401, "unauthenticated"),
  PLAN_REQUIRED(402, "plan_required"),
  FORBIDDEN(403, "forbidden"),
  NOT_FOUND(404, "not_found"),
  METHOD_NOT_ALLOWED(405, "method_not_allowed"),
  ALREADY_REVOKED(409, "already_revoked"),
  BUNDLE_EXISTS(409, "bundle_exists"),
  WORKSPACE_EXISTS(409, "workspace_exists"),
  ESCALATION_CONFLICT(409, "escalation_conflict"),
  IDEMPOTENCY_CONFLICT(409, "idempotency_conflict"),
  NONCE_GONE(410, "nonce_gone"),
  REQUEST_TIMEOUT(408, "request_timeout"),
  PAYLOAD_TOO_LARGE(413, "payload_too_large"),
  URI_TOO_LONG(414, "uri_too_long"),
  RATE_LIMITED(429, "rate_limited"),
  QUOTA_EXCEEDED(429, "quota_exceeded"),
  HEADERS_TOO_LARGE(431, "headers_too_large"),
  INTERNAL_ERROR(500, "internal_error"),
  UNAVAILABLE(503, "unavailable"),
  NOT_READY(503, "not_ready"),
  NOT_LIVE(503, "not_live"),
  HTTP_VERSION_NOT_SUPPORTED(505, "http_version_not_supported");

  private final int status;
  private final String code;

  ErrorCode(int status, String code) {
    this.status = status;
    this.code = code;
  }

  /** The HTTP status this error is answered with. */
  public int status() {
    return status;
  }

  /** The problem+json {@code code}. */
  public String code() {
    return code;
  }
}
