package dev.agentauth.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.model.FieldError;
import dev.agentauth.model.Problem;
import dev.agentauth.server.fatal.FatalErrors;
import dev.agentauth.server.service.ErrorCode;
import dev.agentauth.server.service.ServiceException;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import jakarta.servlet.http.HttpServletResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jetty.http.HttpStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place where errors become answers: a {@link ServiceException} (or an {@link ErrorCode})
 * as {@code application/problem+json} with its status, code, detail, request id and field errors,
 * plus the headers some codes carry ({@code WWW-Authenticate}, {@code Retry-After}).
 */
final class ProblemWriter {
  private static final Logger log = LoggerFactory.getLogger(ProblemWriter.class);
  static final String PROBLEM = "application/problem+json";

  private final ObjectMapper mapper;

  ProblemWriter(ObjectMapper mapper) {
    this.mapper = mapper;
  }

  /** Answers {@code e} as problem+json. */
  void write(Context c, ServiceException e) {
    List<FieldError> errors = null;
    if (e.errors() != null && !e.errors().isEmpty()) {
      errors = new ArrayList<>();
      for (ServiceException.FieldProblem p : e.errors()) {
        errors.add(new FieldError(p.field(), p.message()));
      }
    }
    Problem body =
        new Problem(
            "/errors/" + e.code(),
            title(e.status()),
            e.status(),
            e.detail(),
            e.code(),
            c.attribute(RequestReader.REQUEST_ID_ATTRIBUTE),
            errors);
    if (e.status() == 401) {
      c.header("WWW-Authenticate", "Bearer");
    }
    if (e.retryAfter() != null) {
      c.header("Retry-After", e.retryAfter());
    }
    if (RequestReader.bodyUnread(c)) {
      // The rest of the body would be read as the next request: end the connection, and say so.
      c.header("Connection", "close");
    }
    byte[] bytes;
    try {
      bytes = mapper.writeValueAsBytes(body);
    } catch (JsonProcessingException x) {
      throw new IllegalStateException("problem not serializable", x);
    }
    c.status(e.status()).contentType(PROBLEM).result(bytes);
  }

  /** Answers {@code code} with {@code detail}. */
  void write(Context c, ErrorCode code, String detail) {
    write(c, ServiceException.of(code, detail));
  }

  /** The problem for an error Javalin raised itself (no route, wrong method, body too large). */
  static ServiceException fromJavalin(HttpResponseException e) {
    int status = e.getStatus();
    return switch (status) {
      case 404 -> ServiceException.of(ErrorCode.NOT_FOUND, "no such endpoint");
      case 405 ->
          ServiceException.of(
              ErrorCode.METHOD_NOT_ALLOWED, "this endpoint does not support that method");
      case 413 ->
          ServiceException.of(ErrorCode.PAYLOAD_TOO_LARGE, "the request body is larger than 1 MiB");
      default ->
          status >= 500
              ? internal()
              : ServiceException.of(ErrorCode.INVALID_REQUEST, e.getMessage());
    };
  }

  /** The 500 for any unexpected failure; its cause is logged, never shown. */
  static ServiceException internal() {
    return ServiceException.of(
        ErrorCode.INTERNAL_ERROR, "the server failed to process the request");
  }

  /** The title of a status, as problem+json shows it. */
  static String title(int status) {
    return switch (status) {
      case 400 -> "Bad Request";
      case 401 -> "Unauthorized";
      case 402 -> "Payment Required";
      case 403 -> "Forbidden";
      case 404 -> "Not Found";
      case 405 -> "Method Not Allowed";
      case 409 -> "Conflict";
      case 408 -> "Request Timeout";
      case 410 -> "Gone";
      case 413 -> "Content Too Large";
      case 414 -> "URI Too Long";
      case 429 -> "Too Many Requests";
      case 431 -> "Request Header Fields Too Large";
      case 503 -> "Service Unavailable";
      case 505 -> "HTTP Version Not Supported";
      default -> status >= 500 ? "Internal Server Error" : HttpStatus.getMessage(status);
    };
  }

  /**
   * An Error thrown by a handler (Javalin hands those here, not to the exception handlers): a 500
   * problem like any unexpected failure, and a fatal one (out of memory) goes to the fatal-error
   * policy, which ends the process when one is installed. Written by hand: memory may be short.
   */
  static void writeError(HttpServletResponse res, Error e) {
    try {
      log.error("unexpected error while serving a request", e);
      res.setStatus(500);
      res.setContentType(PROBLEM);
      String id = res.getHeader("X-Request-Id");
      res.getOutputStream()
          .write(
              ("{\"type\":\"/errors/internal_error\",\"title\":\"Internal Server Error\","
                      + "\"status\":500,\"detail\":\"the server failed to process the request\","
                      + "\"code\":\"internal_error\""
                      + (id != null ? ",\"request_id\":\"" + id + "\"" : "")
                      + "}")
                  .getBytes(StandardCharsets.UTF_8));
    } catch (Throwable ignored) {
      // the status is set; the body is a courtesy
    } finally {
      FatalErrors.report(e);
    }
  }
}
