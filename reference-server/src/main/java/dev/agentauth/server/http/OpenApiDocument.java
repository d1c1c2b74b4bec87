package dev.agentauth.server.http;

import dev.agentauth.server.service.Caller;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * {@code GET /openapi.json}: the server's OpenAPI 3.1 document, a resource of the jar read once. A
 * test keeps it equal to the route table (every path, method, access and role) and the HTTP suites
 * check every answer against it.
 */
final class OpenApiDocument {
  /** Where the document is on the class path. */
  static final String RESOURCE = "/openapi.json";

  /** The largest body of a request for the document that is read (and ignored). */
  private static final long SMALL_BODY = 1024;

  private final byte[] bytes;

  OpenApiDocument() {
    try (InputStream in = OpenApiDocument.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(RESOURCE + " is missing from the class path");
      }
      this.bytes = in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + RESOURCE, e);
    }
  }

  void serve(Context c, Caller none) {
    // A small body sent with this GET (at most 1 KiB) is read and ignored: the connection ends
    // after this answer, and ending it with unread bytes would reset it and cut the document
    // short. A larger one is never read (the caller is anonymous).
    long length = c.req().getContentLengthLong();
    if (RequestReader.bodyUnread(c) && length > 0 && length <= SMALL_BODY) {
      RequestReader.body(c);
    }
    c.header("Cache-Control", "no-cache");
    ResponseWriter.send(c, 200, bytes);
  }
}
