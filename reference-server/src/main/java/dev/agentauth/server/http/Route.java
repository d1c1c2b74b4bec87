package dev.agentauth.server.http;

import dev.agentauth.server.service.Caller;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;

/**
 * One endpoint of the route table: method, path (Javalin's {@code {param}} syntax), who may call it
 * and its handler.
 */
record Route(HandlerType method, String path, Access access, Handler handler) {

  /** Who may call an endpoint; checked before the handler runs, in one place ({@link Api}). */
  enum Access {
    /** Anyone: health, readiness, metrics and a workspace's public keys. */
    PUBLIC,
    /** A workspace API key (Authorization: Bearer), within its request rate limit. */
    API_KEY,
    /** The admin token; without one configured the endpoint does not exist (404). */
    ADMIN
  }

  /** A handler: parses the request, calls one service operation and renders its outcome. */
  @FunctionalInterface
  interface Handler {
    /**
     * @param caller the authenticated workspace caller for {@link Access#API_KEY} routes, else null
     */
    void handle(Context c, Caller caller) throws Exception;
  }
}
