package dev.agentauth.server.http;

import dev.agentauth.server.service.ErrorCode;
import dev.agentauth.server.service.ServiceException;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The approvers' and auditors' console (decisions.md §20): static files from the jar's {@code
 * console/} resources, served at {@code /console/}. The console is a client of the public {@code
 * /v1} API like any other; this class only hands out its files.
 *
 * <p>Every response carries a strict Content-Security-Policy (scripts, styles and connections to
 * this origin only, no inline code, no framing), {@code nosniff}, no referrer and no cookies. A
 * name is served only when each of its segments is a plain file name ({@code [a-z0-9][a-z0-9._-]*})
 * with a known extension, so {@code ..}, encoded slashes, hidden files and directories are 404
 * problem+json like any unknown file; there is no directory listing.
 */
public final class ConsoleFiles {
  /** The policy of every console response. */
  static final String CONTENT_SECURITY_POLICY =
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src"
          + " 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none';"
          + " frame-ancestors 'none'";

  private static final String ROOT = "console/";
  private static final String PREFIX = "/console/";
  private static final Pattern SEGMENT = Pattern.compile("[a-z0-9][a-z0-9._-]{0,63}");
  private static final Map<String, String> TYPES =
      Map.of(
          "html", "text/html;charset=utf-8",
          "js", "text/javascript;charset=utf-8",
          "css", "text/css;charset=utf-8",
          "json", "application/json",
          "png", "image/png",
          "svg", "image/svg+xml",
          "txt", "text/plain;charset=utf-8");

  private final ClassLoader loader;
  private final Map<String, byte[]> cache = new ConcurrentHashMap<>();

  private ConsoleFiles(ClassLoader loader) {
    this.loader = loader;
  }

  /** Registers {@code GET /console}, {@code GET /console/} and {@code GET /console/<file>}. */
  public static void register(RoutesConfig routes) {
    ConsoleFiles files = new ConsoleFiles(ConsoleFiles.class.getClassLoader());
    // Javalin matches "/console/" to "/console" and "/console/a.js/" to "/console/<file>" (it
    // ignores trailing slashes) and decodes the path: both handlers decide on the raw request URI.
    routes.get("/console", files::serve);
    routes.get("/console/<file>", files::serve);
  }

  private void serve(Context c) {
    secure(c);
    String uri = c.req().getRequestURI();
    if (PREFIX.equals(uri + "/")) {
      c.redirect(PREFIX, HttpStatus.MOVED_PERMANENTLY);
      return;
    }
    String name =
        uri.equals(PREFIX) ? "index.html" : uri.substring(Math.min(uri.length(), PREFIX.length()));
    String type = uri.startsWith(PREFIX) ? type(name) : null;
    byte[] body = type == null ? null : read(name);
    if (body == null) {
      throw ServiceException.of(ErrorCode.NOT_FOUND, "the console has no file " + printable(name));
    }
    c.header("Cache-Control", "no-cache");
    c.contentType(type);
    c.result(body);
  }

  /** The content type of a name the console may serve, or null when it may not serve it. */
  static String type(String name) {
    if (name.length() > 200) {
      return null;
    }
    for (String segment : name.split("/", -1)) {
      if (!SEGMENT.matcher(segment).matches() || segment.contains("..")) {
        return null;
      }
    }
    int dot = name.lastIndexOf('.');
    return dot < 0 ? null : TYPES.get(name.substring(dot + 1));
  }

  /** The file's bytes, or null. Only files that exist are cached: unknown names cost no memory. */
  private byte[] read(String name) {
    byte[] cached = cache.get(name);
    if (cached != null) {
      return cached;
    }
    try (InputStream in = loader.getResourceAsStream(ROOT + name)) {
      if (in == null) {
        return null;
      }
      byte[] bytes = in.readAllBytes();
      cache.put(name, bytes);
      return bytes;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void secure(Context c) {
    c.header("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    c.header("X-Content-Type-Options", "nosniff");
    c.header("X-Frame-Options", "DENY");
    c.header("Referrer-Policy", "no-referrer");
    c.header("Cross-Origin-Opener-Policy", "same-origin");
    c.header("Cross-Origin-Resource-Policy", "same-origin");
  }

  private static String printable(String name) {
    String shown = name.length() > 80 ? name.substring(0, 80) + "..." : name;
    return "\"" + shown.replaceAll("[^\\x20-\\x7e]", "?").replace("\"", "?") + "\"";
  }
}
