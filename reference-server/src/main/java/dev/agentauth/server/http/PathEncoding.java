package dev.agentauth.server.http;

import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.Request;

/**
 * Refuses a request whose path holds a {@code %} that does not start a two-hex-digit escape: 400
 * before routing, answered by {@link ProblemErrorHandler}. Jetty's LEGACY URI rules, which Javalin
 * sets, pass some through — a {@code %u00e9} escape, or a bad escape after a {@code ;} (a path
 * parameter, which Jetty leaves out of the path it decodes but Javalin keeps in a path id) — and
 * the route's path-id decoding then failed with a 500.
 */
final class PathEncoding implements HttpConfiguration.Customizer {
  @Override
  public Request customize(Request request, HttpFields.Mutable responseHeaders) {
    String path = request.getHttpURI().getPath();
    if (path != null && !wellFormed(path)) {
      throw new HttpException.RuntimeException(400, "Bad percent-encoding in the path");
    }
    return request;
  }

  /** Whether every {@code %} in {@code path} is followed by two hex digits. */
  static boolean wellFormed(String path) {
    for (int i = path.indexOf('%'); i >= 0; i = path.indexOf('%', i + 1)) {
      if (i + 2 >= path.length() || !hex(path.charAt(i + 1)) || !hex(path.charAt(i + 2))) {
        return false;
      }
    }
    return true;
  }

  private static boolean hex(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  }
}
