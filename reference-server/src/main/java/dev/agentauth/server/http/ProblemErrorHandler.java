package dev.agentauth.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.model.AgentAuthJson;
import dev.agentauth.model.Problem;
import dev.agentauth.server.service.ErrorCode;
import io.javalin.config.JettyConfig;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Jetty's error page, as problem+json (decisions.md §16). Jetty answers some requests itself,
 * before any route runs: a request line or header it cannot parse (400, 414, 431, 505), a bad
 * {@code Content-Length} or chunked body, a path that is not valid percent-encoded UTF-8. Its
 * default page for those is HTML; this one is the same problem document every route answers, with a
 * {@code code} and a request id.
 *
 * <p>Registered on the server and on Javalin's servlet context (which would otherwise use its own
 * HTML handler) by {@link #install(JettyConfig)}, which also has Jetty refuse the malformed
 * percent-encodings its lenient URI rules let through to the routes.
 */
public final class ProblemErrorHandler extends ErrorHandler {
  private static final int MAX_DETAIL = 200;

  private final ObjectMapper mapper = AgentAuthJson.newObjectMapper();

  /**
   * Makes every error Jetty writes itself a problem document, and has Jetty refuse a path with a
   * malformed percent-encoding that its lenient rules would pass on ({@link PathEncoding}).
   */
  public static void install(JettyConfig jetty) {
    ProblemErrorHandler handler = new ProblemErrorHandler();
    jetty.modifyServer(server -> server.setErrorHandler(handler));
    jetty.modifyServletContextHandler(context -> context.setErrorHandler(handler));
    jetty.modifyHttpConfiguration(http -> http.addCustomizer(new PathEncoding()));
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    int status = response.getStatus();
    String message = (String) request.getAttribute(ERROR_MESSAGE);
    Throwable cause = (Throwable) request.getAttribute(ERROR_EXCEPTION);
    if (cause instanceof HttpException http) {
      status = http.getCode();
      if (message == null) {
        message = http.getReason();
      }
    }
    if (status < 400 || status > 599) {
      status = 500;
    }
    ErrorCode code = code(status);
    if (code == ErrorCode.INTERNAL_ERROR) {
      status = 500;
      message = "the server failed to process the request";
    }
    String id = RequestReader.requestId(request.getHeaders().get("X-Request-Id"));
    Problem problem =
        new Problem(
            "/errors/" + code.code(),
            ProblemWriter.title(status),
            status,
            detail(message),
            code.code(),
            id,
            null);
    byte[] body;
    try {
      body = mapper.writeValueAsBytes(problem);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("problem not serializable", e);
    }
    response.setStatus(status);
    response.getHeaders().put(ERROR_CACHE_CONTROL);
    response.getHeaders().put("X-Request-Id", id);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, ProblemWriter.PROBLEM);
    // Jetty ends the connection after an error it answers itself (it cannot tell where the next
    // request would start); a keep-alive client must hear so rather than find out on its next
    // request.
    response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE.asString());
    if (HttpMethod.HEAD.is(request.getMethod())) {
      // No body, whether or not Jetty knows the request was a HEAD (it does not for one it could
      // not parse, and would send the body).
      response.write(true, null, callback);
      return true;
    }
    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
    response.write(true, ByteBuffer.wrap(body), callback);
    return true;
  }

  /** The §16 code of a status Jetty answers with. */
  static ErrorCode code(int status) {
    return switch (status) {
      case 404 -> ErrorCode.NOT_FOUND;
      case 405 -> ErrorCode.METHOD_NOT_ALLOWED;
      case 408 -> ErrorCode.REQUEST_TIMEOUT;
      case 413 -> ErrorCode.PAYLOAD_TOO_LARGE;
      case 414 -> ErrorCode.URI_TOO_LONG;
      case 431 -> ErrorCode.HEADERS_TOO_LARGE;
      case 426, 505 -> ErrorCode.HTTP_VERSION_NOT_SUPPORTED;
      default -> status < 500 ? ErrorCode.INVALID_REQUEST : ErrorCode.INTERNAL_ERROR;
    };
  }

  /**
   * Jetty's reason (for instance "Bad UTF-8 encoding"), at most {@value #MAX_DETAIL} characters of
   * printable text: a reason may quote part of what the client sent.
   */
  private static String detail(String message) {
    if (message == null || message.isBlank()) {
      return null;
    }
    StringBuilder sb = new StringBuilder(Math.min(message.length(), MAX_DETAIL));
    for (int i = 0; i < message.length() && sb.length() < MAX_DETAIL; i++) {
      char c = message.charAt(i);
      sb.append(c < 0x20 || c == 0x7f || Character.isSurrogate(c) ? '\ufffd' : c);
    }
    return sb.toString();
  }
}
