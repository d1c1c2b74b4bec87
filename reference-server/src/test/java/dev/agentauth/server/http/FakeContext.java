package dev.agentauth.server.http;

import io.javalin.http.Context;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * A Javalin {@link Context} over an in-memory request and response, so that the http classes can be
 * called directly, without a server or a socket. Javalin's own default methods run unchanged (they
 * read and write the servlet request and response); the servlet objects hold only what those
 * methods and the classes under test use, and anything else fails loudly with the method's name.
 */
final class FakeContext {
  private final Map<String, String> requestHeaders = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
  private final Map<String, Object> attributes = new HashMap<>();
  private final Map<String, String> pathParams = new LinkedHashMap<>();
  private final Map<String, String> responseHeaders = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
  private final ByteArrayOutputStream written = new ByteArrayOutputStream();
  private final String method;
  private final String path;
  private final String query;
  private byte[] body = new byte[0];
  private long contentLength = -1;
  private ByteArrayInputStream bodyStream = new ByteArrayInputStream(body);
  private int status = 200;
  private String contentType;
  private byte[] result;

  /** A request of {@code method} to {@code path} with {@code query} (null: none) and no body. */
  FakeContext(String method, String path, String query) {
    this.method = method;
    this.path = path;
    this.query = query;
  }

  /** Sets a request header. */
  FakeContext header(String name, String value) {
    requestHeaders.put(name, value);
    return this;
  }

  /** Sets the body, announced with its length. */
  FakeContext body(String utf8) {
    return body(utf8.getBytes(StandardCharsets.UTF_8), -2);
  }

  /** Sets the body and the announced length ({@code -1}: none, chunked; {@code -2}: its own). */
  FakeContext body(byte[] bytes, long announced) {
    body = bytes.clone();
    bodyStream = new ByteArrayInputStream(body);
    contentLength = announced == -2 ? bytes.length : announced;
    if (contentLength >= 0) {
      requestHeaders.put("Content-Length", Long.toString(contentLength));
    } else {
      requestHeaders.put("Transfer-Encoding", "chunked");
    }
    return this;
  }

  /** Sets a path parameter. */
  FakeContext pathParam(String name, String value) {
    pathParams.put(name, value);
    return this;
  }

  /** Bytes of the request body not read yet. */
  int bodyLeft() {
    return bodyStream.available();
  }

  int status() {
    return status;
  }

  String contentType() {
    return contentType;
  }

  /** A response header, or null. */
  String responseHeader(String name) {
    return responseHeaders.get(name);
  }

  /** The response body set with {@code result(...)} or written to the output stream. */
  String resultText() {
    byte[] bytes = result != null ? result : written.toByteArray();
    return new String(bytes, StandardCharsets.UTF_8);
  }

  /** The Context the code under test sees. */
  Context context() {
    HttpServletRequest req = proxy(HttpServletRequest.class, this::request);
    HttpServletResponse res = proxy(HttpServletResponse.class, this::response);
    return proxy(
        Context.class,
        (self, m, args) ->
            switch (m.getName()) {
              case "req" -> req;
              case "res" -> res;
              case "pathParamMap" -> Map.copyOf(pathParams);
              case "pathParam" -> pathParams.get((String) args[0]);
              case "result" -> {
                if (args != null && args[0] instanceof InputStream in) {
                  result = in.readAllBytes();
                  yield self;
                }
                yield InvocationHandler.invokeDefault(self, m, args);
              }
              default -> {
                if (m.isDefault()) {
                  yield InvocationHandler.invokeDefault(self, m, args);
                }
                throw new UnsupportedOperationException("FakeContext has no " + m);
              }
            });
  }

  /** The response the code under test writes, without a Context (as Jetty's error path has). */
  HttpServletResponse response() {
    return proxy(HttpServletResponse.class, this::response);
  }

  private Object request(Object self, Method m, Object[] args) {
    return switch (m.getName()) {
      case "getHeader" -> requestHeaders.get((String) args[0]);
      case "getAttribute" -> attributes.get((String) args[0]);
      case "setAttribute" -> attributes.put((String) args[0], args[1]);
      case "removeAttribute" -> attributes.remove((String) args[0]);
      case "getMethod" -> method;
      case "getRequestURI" -> path;
      case "getQueryString" -> query;
      case "getCharacterEncoding" -> null;
      case "getContentLengthLong" -> contentLength;
      case "getContentLength" -> (int) Math.min(Integer.MAX_VALUE, contentLength);
      case "getInputStream" -> servletInput();
      default -> throw new UnsupportedOperationException("FakeContext's request has no " + m);
    };
  }

  private Object response(Object self, Method m, Object[] args) {
    return switch (m.getName()) {
      case "setStatus" -> {
        status = (Integer) args[0];
        yield null;
      }
      case "getStatus" -> status;
      case "setContentType" -> {
        contentType = (String) args[0];
        yield null;
      }
      case "getContentType" -> contentType;
      case "setHeader", "addHeader" -> {
        responseHeaders.put((String) args[0], (String) args[1]);
        yield null;
      }
      case "getHeader" -> responseHeaders.get((String) args[0]);
      case "containsHeader" -> responseHeaders.containsKey((String) args[0]);
      case "getOutputStream" -> servletOutput();
      default -> throw new UnsupportedOperationException("FakeContext's response has no " + m);
    };
  }

  private ServletInputStream servletInput() {
    return new ServletInputStream() {
      @Override
      public int read() {
        return bodyStream.read();
      }

      @Override
      public int read(byte[] b, int off, int len) {
        return bodyStream.read(b, off, len);
      }

      @Override
      public int available() {
        return bodyStream.available();
      }

      @Override
      public boolean isFinished() {
        return bodyStream.available() == 0;
      }

      @Override
      public boolean isReady() {
        return true;
      }

      @Override
      public void setReadListener(ReadListener listener) {
        throw new UnsupportedOperationException("FakeContext reads synchronously");
      }
    };
  }

  private ServletOutputStream servletOutput() {
    return new ServletOutputStream() {
      @Override
      public void write(int b) {
        written.write(b);
      }

      @Override
      public boolean isReady() {
        return true;
      }

      @Override
      public void setWriteListener(WriteListener listener) {
        throw new UnsupportedOperationException("FakeContext writes synchronously");
      }
    };
  }

  /** What a proxy does with a call. */
  @FunctionalInterface
  private interface Handler {
    Object handle(Object self, Method m, Object[] args) throws Throwable;
  }

  private static <T> T proxy(Class<T> type, Handler handler) {
    return type.cast(
        Proxy.newProxyInstance(
            FakeContext.class.getClassLoader(),
            new Class<?>[] {type},
            (self, m, args) -> {
              if (m.getDeclaringClass() == Object.class) {
                return switch (m.getName()) {
                  case "equals" -> self == args[0];
                  case "hashCode" -> System.identityHashCode(self);
                  default -> "FakeContext " + type.getSimpleName();
                };
              }
              return handler.handle(self, m, args);
            }));
  }
}
