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
    // A body sent with this GET that is already in the server's buffer is read and ignored: the
    // connection ends after this answer, and ending it with unread bytes would reset it and cut
    // the document short. A body still on its way is never waited for (the caller is anonymous).
    if (RequestReader.bodyUnread(c)
        && c.req().getContentLengthLong() <= RequestReader.MAX_BODY
        && RequestReader.arrived(c)) {
      RequestReader.body(c);
    }
    c.header("Cache-Control", "no-cache");
    ResponseWriter.send(c, 200, bytes);
  }
}
