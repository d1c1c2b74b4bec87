package dev.agentauth.server.service;

/**
 * Every error the service answers with: its HTTP status and its problem+json {@code code}. The one
 * list of codes (service.md's error table and decisions.md §16); {@code http} maps a {@link
 * ServiceException} to problem+json from it and nothing else.
 */
public enum ErrorCode {
  /**
   * A malformed request: not a JSON object, a member missing, unknown, duplicated or of the wrong
   * type, or a value out of range.
   */
  INVALID_REQUEST(400, "invalid_request"),
  /**
   * An identifier field ({@code user_id}, {@code agent_id}, ...) looks like a raw e-mail address or
   * phone number.
   */
  PII_NOT_ALLOWED(400, "pii_not_allowed"),
  /** The {@code bundle_id} names no active bundle of the workspace. */
  BUNDLE_NOT_FOUND(400, "bundle_not_found"),
  /** No, malformed, unknown, revoked or expired API key (or admin or metrics token). */
  UNAUTHENTICATED(401, "unauthenticated"),
  /** A feature the workspace's plan does not have (escalations, budgets on {@code free}). */
  PLAN_REQUIRED(402, "plan_required"),
  /** The API key's role may not make this call, or an approver key named another approver. */
  FORBIDDEN(403, "forbidden"),
  /** An unknown id or one of another workspace, an unknown path, or the admin API when disabled. */
  NOT_FOUND(404, "not_found"),
  /** The path exists, but not with this method. */
  METHOD_NOT_ALLOWED(405, "method_not_allowed"),
  /** Revoking an authorization or an API key a second time. */
  ALREADY_REVOKED(409, "already_revoked"),
  /** Creating a bundle whose id is active. */
  BUNDLE_EXISTS(409, "bundle_exists"),
  /** Admin: creating a workspace that exists. */
  WORKSPACE_EXISTS(409, "workspace_exists"),
  /** Resolving an escalation that is resolved the other way, consumed, expired or revoked. */
  ESCALATION_CONFLICT(409, "escalation_conflict"),
  /** An {@code Idempotency-Key} reused with another request. */
  IDEMPOTENCY_CONFLICT(409, "idempotency_conflict"),
  /** A confirmation nonce that is expired, used, unknown or revoked (all alike). */
  NONCE_GONE(410, "nonce_gone"),
  /** The request's body did not arrive in time, or arrived too slowly. */
  REQUEST_TIMEOUT(408, "request_timeout"),
  /** A request body over the size limit (1 MiB). */
  PAYLOAD_TOO_LARGE(413, "payload_too_large"),
  /** A request target longer than the server reads. */
  URI_TOO_LONG(414, "uri_too_long"),
  /** The API key's rate limit, or one of its workspace's in-flight limits, is reached. */
  RATE_LIMITED(429, "rate_limited"),
  /** The workspace stored its receipts (or receipt bytes) of the UTC day. */
  QUOTA_EXCEEDED(429, "quota_exceeded"),
  /** Request headers larger than the server reads. */
  HEADERS_TOO_LARGE(431, "headers_too_large"),
  /** An unexpected fault; the body carries no detail of it. */
  INTERNAL_ERROR(500, "internal_error"),
  /** The server is shedding load or its store is too slow: retry after {@code Retry-After}. */
  UNAVAILABLE(503, "unavailable"),
  /** {@code /readyz}: the store cannot be reached, or a background thread has stopped. */
  NOT_READY(503, "not_ready"),
  /** {@code /healthz}: a thread the server cannot run without has stopped; restart it. */
  NOT_LIVE(503, "not_live"),
  /** A request line naming an HTTP version other than 1.0 and 1.1. */
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
