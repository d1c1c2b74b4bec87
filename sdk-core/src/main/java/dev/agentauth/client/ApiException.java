package dev.agentauth.client;

import dev.agentauth.model.FieldError;
import dev.agentauth.model.Problem;
import java.util.List;

/**
 * The service answered with an error status. When the body is an RFC 9457 problem ({@code
 * application/problem+json}), {@link #code()}, {@link #detail()} and {@link #fieldErrors()} carry
 * its members; when it is something else (a proxy's HTML page, an empty body) they are {@code
 * null}/empty and the message names the status, the content type found and the start of the body.
 *
 * <p>Statuses a caller handles differently have their own subclass: {@link BadRequestException}
 * (400), {@link AuthenticationException} (401), {@link PlanRequiredException} (402), {@link
 * NotFoundException} (404), {@link ConflictException} (409), {@link GoneException} (410), {@link
 * PayloadTooLargeException} (413), {@link RateLimitException} (429) and {@link ServerException}
 * (5xx). Any other status is an {@code ApiException} itself.
 *
 * <pre>{@code
 * try {
 *   client.authorizations().revoke(id);
 * } catch (ConflictException e) {
 *   // "already_revoked": nothing to do
 * } catch (ApiException e) {
 *   log.warn("revoke failed: {} (request {})", e.code(), e.requestId());
 * }
 * }</pre>
 */
public class ApiException extends AgentAuthException {
  private static final long serialVersionUID = 1L;

  private final int statusCode;
  private final String code;
  private final String title;
  private final String detail;
  private final transient List<FieldError> fieldErrors;
  private final transient Problem problem;

  /**
   * Creates an exception for an error response.
   *
   * @param message what happened, without secrets
   * @param statusCode the HTTP status
   * @param problem the parsed problem body, or {@code null} when the body was not one
   * @param requestId the response's {@code X-Request-Id} (or the problem's {@code request_id})
   */
  public ApiException(String message, int statusCode, Problem problem, String requestId) {
    super(message, requestId, null);
    this.statusCode = statusCode;
    this.problem = problem;
    this.code = problem == null ? null : problem.code();
    this.title = problem == null ? null : problem.title();
    this.detail = problem == null ? null : problem.detail();
    this.fieldErrors =
        problem == null || problem.errors() == null ? List.of() : List.copyOf(problem.errors());
  }

  /** Returns the HTTP status code. */
  public int statusCode() {
    return statusCode;
  }

  /**
   * Returns the problem's stable machine-readable {@code code} ({@code invalid_request}, {@code
   * already_revoked}, ...), or {@code null} when the body was not a problem document.
   */
  public String code() {
    return code;
  }

  /** Returns the problem's {@code title}, or {@code null}. */
  public String title() {
    return title;
  }

  /** Returns the problem's human-readable {@code detail}, or {@code null}. */
  public String detail() {
    return detail;
  }

  /**
   * Returns the problem's field-level validation errors ({@code errors}); empty when the failure
   * was not a validation failure or the body was not a problem document. Not kept when the
   * exception is serialized.
   */
  public List<FieldError> fieldErrors() {
    return fieldErrors == null ? List.of() : fieldErrors;
  }

  /**
   * Returns the whole problem body, or {@code null} when the body was not a problem document. Not
   * kept when the exception is serialized.
   */
  public Problem problem() {
    return problem;
  }
}
