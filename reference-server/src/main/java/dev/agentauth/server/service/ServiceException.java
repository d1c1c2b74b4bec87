package dev.agentauth.server.service;

import java.util.List;

/**
 * A client-visible failure: rendered as problem+json with {@code status} and {@code code}, and
 * field errors for validation failures. Throwing one inside a transaction rolls it back.
 */
public final class ServiceException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** One invalid field: a path such as {@code scopes[1].name} and what is wrong with it. */
  public record FieldProblem(String field, String message) {}

  private final int status;
  private final String code;
  private final transient List<FieldProblem> errors;
  private final String retryAfter;

  private ServiceException(
      int status, String code, String detail, List<FieldProblem> errors, String retryAfter) {
    super(detail, null, false, false);
    this.status = status;
    this.code = code;
    this.errors = errors == null ? null : List.copyOf(errors);
    this.retryAfter = retryAfter;
  }

  /** Builds an error that names fields with a code other than {@code invalid_request}. */
  public static final class Builder {
    private final int status;
    private final String code;
    private final String detail;
    private final List<FieldProblem> fields = new java.util.ArrayList<>();

    public Builder(int status, String code, String detail) {
      this.status = status;
      this.code = code;
      this.detail = detail;
    }

    public Builder field(String field, String message) {
      fields.add(new FieldProblem(field, message));
      return this;
    }

    public ServiceException build() {
      return new ServiceException(status, code, detail, fields, null);
    }
  }

  public static ServiceException of(int status, String code, String detail) {
    return new ServiceException(status, code, detail, null, null);
  }

  /** 400 {@code invalid_request} naming the invalid fields. */
  public static ServiceException invalid(List<FieldProblem> errors) {
    String detail =
        errors.size() == 1
            ? errors.get(0).field() + ": " + errors.get(0).message()
            : errors.size() + " fields are invalid; see errors";
    return new ServiceException(400, "invalid_request", detail, errors, null);
  }

  /**
   * 400 {@code invalid_request} listing {@code errors}, the first problems found when validation
   * stopped at its limit (a request can hold far more problems than are worth finding).
   */
  public static ServiceException invalidTruncated(List<FieldProblem> errors) {
    return new ServiceException(
        400,
        "invalid_request",
        errors.size() + " or more problems found; the first " + errors.size() + " are listed",
        errors,
        null);
  }

  /** 400 {@code invalid_request} for one field. */
  public static ServiceException invalid(String field, String message) {
    return invalid(List.of(new FieldProblem(field, message)));
  }

  public static ServiceException notFound(String what) {
    return of(404, "not_found", what + " not found");
  }

  public static ServiceException rateLimited(long retryAfterSeconds) {
    return rateLimited(retryAfterSeconds, "request rate limit of this API key exceeded");
  }

  /** 429 {@code rate_limited} saying which limit was reached. */
  public static ServiceException rateLimited(long retryAfterSeconds, String detail) {
    return new ServiceException(
        429, "rate_limited", detail, null, Long.toString(retryAfterSeconds));
  }

  /** 503 {@code unavailable}: the service is overloaded or a dependency is not answering. */
  public static ServiceException unavailable(String detail, long retryAfterSeconds) {
    return new ServiceException(503, "unavailable", detail, null, Long.toString(retryAfterSeconds));
  }

  public int status() {
    return status;
  }

  public String code() {
    return code;
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
