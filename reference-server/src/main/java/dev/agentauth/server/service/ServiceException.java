package dev.agentauth.server.service;

import java.util.List;

/**
 * A failure the client is told about: an {@link ErrorCode} (status and code), a detail, and for
 * validation failures the fields at fault. Thrown inside a transaction it rolls the transaction
 * back. Only {@code http} turns it into problem+json.
 */
public final class ServiceException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** One invalid field: a path such as {@code scopes[1].name} and what is wrong with it. */
  public record FieldProblem(String field, String message) {}

  private final ErrorCode code;
  private final transient List<FieldProblem> errors;
  private final String retryAfter;

  private ServiceException(
      ErrorCode code, String detail, List<FieldProblem> errors, String retryAfter) {
    super(detail, null, false, false);
    this.code = code;
    this.errors = errors == null ? null : List.copyOf(errors);
    this.retryAfter = retryAfter;
  }

  /** Builds an error that names fields with a code other than {@code invalid_request}. */
  public static final class Builder {
    private final ErrorCode code;
    private final String detail;
    private final List<FieldProblem> fields = new java.util.ArrayList<>();

    public Builder(ErrorCode code, String detail) {
      this.code = code;
      this.detail = detail;
    }

    public Builder field(String field, String message) {
      fields.add(new FieldProblem(field, message));
      return this;
    }

    public ServiceException build() {
      return new ServiceException(code, detail, fields, null);
    }
  }

  public static ServiceException of(ErrorCode code, String detail) {
    return new ServiceException(code, detail, null, null);
  }

  /** 400 {@code invalid_request} naming the invalid fields. */
  public static ServiceException invalid(List<FieldProblem> errors) {
    String detail =
        errors.size() == 1
            ? errors.get(0).field() + ": " + errors.get(0).message()
            : errors.size() + " fields are invalid; see errors";
    return new ServiceException(ErrorCode.INVALID_REQUEST, detail, errors, null);
  }

  /**
   * 400 {@code invalid_request} listing {@code errors}, the first problems found when validation
   * stopped at its limit (a request can hold far more problems than are worth finding).
   */
  public static ServiceException invalidTruncated(List<FieldProblem> errors) {
    return new ServiceException(
        ErrorCode.INVALID_REQUEST,
        errors.size() + " or more problems found; the first " + errors.size() + " are listed",
        errors,
        null);
  }

  /** 400 {@code invalid_request} for one field. */
  public static ServiceException invalid(String field, String message) {
    return invalid(List.of(new FieldProblem(field, message)));
  }

  public static ServiceException notFound(String what) {
    return of(ErrorCode.NOT_FOUND, what + " not found");
  }

  public static ServiceException rateLimited(long retryAfterSeconds) {
    return rateLimited(retryAfterSeconds, "request rate limit of this API key exceeded");
  }

  /** 429 {@code rate_limited} saying which limit was reached. */
  public static ServiceException rateLimited(long retryAfterSeconds, String detail) {
    return new ServiceException(
        ErrorCode.RATE_LIMITED, detail, null, Long.toString(retryAfterSeconds));
  }

  /** 429 {@code quota_exceeded}: the workspace stored its receipts of the day. */
  public static ServiceException quotaExceeded(long retryAfterSeconds, String detail) {
    return new ServiceException(
        ErrorCode.QUOTA_EXCEEDED, detail, null, Long.toString(retryAfterSeconds));
  }

  /** 503 {@code unavailable}: the service is overloaded or a dependency is not answering. */
  public static ServiceException unavailable(String detail, long retryAfterSeconds) {
    return new ServiceException(
        ErrorCode.UNAVAILABLE, detail, null, Long.toString(retryAfterSeconds));
  }

  public ErrorCode errorCode() {
    return code;
  }

  public int status() {
    return code.status();
  }

  /** The problem+json {@code code}. */
  public String code() {
    return code.code();
  }

  public String detail() {
    return getMessage();
  }

  public List<FieldProblem> errors() {
    return errors;
  }

  public String retryAfter() {
    return retryAfter;
  }
}
