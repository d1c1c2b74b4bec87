package dev.agentauth.client.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.client.ApiException;
import dev.agentauth.client.AuthenticationException;
import dev.agentauth.client.BadRequestException;
import dev.agentauth.client.ConflictException;
import dev.agentauth.client.ConnectionException;
import dev.agentauth.client.ForbiddenException;
import dev.agentauth.client.GoneException;
import dev.agentauth.client.MalformedResponseException;
import dev.agentauth.client.NotFoundException;
import dev.agentauth.client.PayloadTooLargeException;
import dev.agentauth.client.PlanRequiredException;
import dev.agentauth.client.RateLimitException;
import dev.agentauth.client.RequestTimeoutException;
import dev.agentauth.client.ServerException;
import dev.agentauth.model.FieldError;
import dev.agentauth.model.Problem;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.stream.Collectors;
import javax.net.ssl.SSLException;
import okhttp3.Headers;

/**
 * Turns failed responses and transport failures into the client's exceptions, with messages that
 * say what was expected and what was found and never contain the API key. Not part of the public
 * API.
 */
public final class Errors {
  private static final int SNIPPET_LENGTH = 200;
  private static final String REDACTED = "[redacted]";

  private final ObjectMapper mapper;
  private final String apiKey;

  /** Creates the mapper for one client; {@code apiKey} is redacted from every message. */
  public Errors(ObjectMapper mapper, String apiKey) {
    this.mapper = mapper;
    this.apiKey = apiKey;
  }

  /** Returns whether a status is worth retrying: 408, 429, 500, 502, 503, 504. */
  public static boolean retryableStatus(int status) {
    return status == 408
        || status == 429
        || status == 500
        || status == 502
        || status == 503
        || status == 504;
  }

  /** Returns whether the transport failure was the call's timeout running out. */
  public static boolean isTimeout(IOException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SocketTimeoutException) {
        return true;
      }
      if (t instanceof InterruptedIOException && "timeout".equals(t.getMessage())) {
        return true;
      }
    }
    return false;
  }

  /**
   * Returns whether a failure came from the calling thread being interrupted (never retried, never
   * a fallback).
   */
  public static boolean isInterruption(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof InterruptedException) {
        return true;
      }
      if (t instanceof InterruptedIOException
          && !(t instanceof SocketTimeoutException)
          && !"timeout".equals(t.getMessage())) {
        return true;
      }
    }
    return false;
  }

  /** Builds the exception for a transport failure. */
  public ConnectionException transport(
      ApiRequest<?> request, IOException e, String requestId, Duration timeout) {
    String what = request.describe();
    if (isTimeout(e)) {
      return new RequestTimeoutException(
          what + " timed out: no complete answer within " + human(timeout), requestId, e);
    }
    if (isInterruption(e)) {
      return new ConnectionException(what + " was interrupted", requestId, e);
    }
    String kind;
    if (e instanceof ConnectException) {
      kind = "could not connect";
    } else if (e instanceof UnknownHostException) {
      kind = "could not resolve the host";
    } else if (e instanceof SSLException) {
      kind = "TLS failed";
    } else if (requestId != null) {
      kind = "the connection failed while reading the response";
    } else {
      kind = "the connection failed";
    }
    return new ConnectionException(
        what + " failed: " + kind + " (" + redact(String.valueOf(e)) + ")", requestId, e);
  }

  /** Builds the exception for an interrupted backoff wait. */
  public ConnectionException interrupted(ApiRequest<?> request, InterruptedException e) {
    return new ConnectionException(
        request.describe() + " was interrupted while waiting to retry", null, e);
  }

  /** Builds the exception for a success status whose body cannot be read. */
  public MalformedResponseException malformed(
      ApiRequest<?> request,
      int status,
      String contentType,
      byte[] body,
      String requestId,
      Exception cause) {
    String message =
        request.describe()
            + " answered HTTP "
            + status
            + " but the body is not the expected JSON ("
            + request.bodyType
            + "); found "
            + describeBody(contentType, body)
            + requestIdSuffix(requestId);
    return new MalformedResponseException(message, status, requestId, cause);
  }

  /** Builds the exception for an error status. */
  public ApiException fromStatus(
      ApiRequest<?> request,
      int status,
      Headers headers,
      String contentType,
      byte[] body,
      Instant now) {
    Problem problem = parseProblem(contentType, body);
    String requestId = headers.get("X-Request-Id");
    if (requestId == null && problem != null) {
      requestId = problem.requestId();
    }
    StringBuilder m = new StringBuilder();
    m.append(request.describe()).append(" failed: HTTP ").append(status);
    if (problem != null) {
      m.append(' ').append(problem.code());
      String text = problem.detail() != null ? problem.detail() : problem.title();
      if (text != null) {
        m.append(": ").append(redact(text));
      }
      if (problem.errors() != null && !problem.errors().isEmpty()) {
        m.append(" [")
            .append(
                problem.errors().stream()
                    .map(Errors::describeFieldError)
                    .map(this::redact)
                    .collect(Collectors.joining("; ")))
            .append(']');
      }
    } else if (status >= 300 && status < 400) {
      String location = headers.get("Location");
      m.append(" redirect")
          .append(location == null ? "" : " to " + redact(location))
          .append(
              "; the client follows no redirect, since the API key would go with it: set the base"
                  + " URL to the server's final address");
    } else {
      m.append("; expected an application/problem+json body, found ")
          .append(describeBody(contentType, body));
    }
    m.append(requestIdSuffix(requestId));
    String message = m.toString();
    switch (status) {
      case 400:
        return new BadRequestException(message, status, problem, requestId);
      case 401:
        return new AuthenticationException(message, status, problem, requestId);
      case 402:
        return new PlanRequiredException(message, status, problem, requestId);
      case 403:
        return new ForbiddenException(message, status, problem, requestId);
      case 404:
        return new NotFoundException(message, status, problem, requestId);
      case 409:
        return new ConflictException(message, status, problem, requestId);
      case 410:
        return new GoneException(message, status, problem, requestId);
      case 413:
        return new PayloadTooLargeException(message, status, problem, requestId);
      case 429:
        return new RateLimitException(
            message, status, problem, requestId, retryAfter(headers.get("Retry-After"), now));
      default:
        if (status >= 500 && status <= 599) {
          return new ServerException(message, status, problem, requestId);
        }
        return new ApiException(message, status, problem, requestId);
    }
  }

  /**
   * Parses {@code Retry-After}: delay-seconds or an HTTP date. Returns {@code null} when absent or
   * unreadable; never negative.
   */
  public static Duration retryAfter(String value, Instant now) {
    if (value == null) {
      return null;
    }
    String v = value.trim();
    if (v.isEmpty()) {
      return null;
    }
    if (v.chars().allMatch(Character::isDigit)) {
      try {
        return Duration.ofSeconds(Long.parseLong(v));
      } catch (NumberFormatException e) {
        return null; // absurdly large: treat as unknown
      }
    }
    try {
      Instant at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
      Duration d = Duration.between(now, at);
      return d.isNegative() ? Duration.ZERO : d;
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  private Problem parseProblem(String contentType, byte[] body) {
    if (body.length == 0
        || contentType == null
        || !contentType.toLowerCase(Locale.ROOT).contains("json")) {
      return null;
    }
    try {
      Problem p = mapper.readValue(body, Problem.class);
      return p == null || p.code() == null ? null : p;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  private static String describeFieldError(FieldError e) {
    return e.field() + ": " + e.message();
  }

  private String describeBody(String contentType, byte[] body) {
    String type = contentType == null ? "no content type" : contentType;
    if (body.length == 0) {
      return type + " with an empty body";
    }
    String text =
        new String(body, 0, Math.min(body.length, SNIPPET_LENGTH * 4), StandardCharsets.UTF_8);
    text = text.replaceAll("\\s+", " ").strip();
    if (text.length() > SNIPPET_LENGTH) {
      text = text.substring(0, SNIPPET_LENGTH) + "...";
    }
    return type + ": \"" + redact(text) + "\"";
  }

  private static String requestIdSuffix(String requestId) {
    return requestId == null ? "" : " (request_id " + requestId + ")";
  }

  /** Removes the API key from any text that may have echoed it. */
  public String redact(String text) {
    if (text == null || apiKey == null || apiKey.isEmpty()) {
      return text;
    }
    return text.replace(apiKey, REDACTED);
  }

  private static String human(Duration d) {
    if (d == null) {
      return "the timeout";
    }
    long ms = d.toMillis();
    return ms % 1000 == 0 ? (ms / 1000) + " s" : ms + " ms";
  }

  /** Unwraps {@link java.util.concurrent.CompletionException} layers to the client's exception. */
  public static Throwable unwrap(Throwable t) {
    Throwable cur = t;
    while ((cur instanceof java.util.concurrent.CompletionException
            || cur instanceof java.util.concurrent.ExecutionException)
        && cur.getCause() != null) {
      cur = cur.getCause();
    }
    return cur;
  }
}
