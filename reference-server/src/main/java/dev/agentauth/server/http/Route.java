package dev.agentauth.server.http;

import dev.agentauth.model.ApiKeyRole;
import dev.agentauth.server.service.Caller;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * One endpoint of the route table: method, path (Javalin's {@code {param}} syntax), who may call it
 * and its handler.
 *
 * @param roles for {@link Access#API_KEY} rows, the API key roles that may call it (never empty);
 *     empty for every other row
 */
record Route(
    HandlerType method, String path, Access access, Set<ApiKeyRole.Known> roles, Handler handler) {

  Route {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(access, "access");
    Objects.requireNonNull(handler, "handler");
    roles = roles.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(roles));
    if ((access == Access.API_KEY) == roles.isEmpty()) {
      throw new IllegalArgumentException(
          method + " " + path + ": an API key row names its roles, and only such a row does");
    }
  }

  /** Who may call an endpoint; checked before the handler runs, in one place ({@link Api}). */
  enum Access {
    /** Anyone: health, readiness, the OpenAPI document and a workspace's public keys. */
    PUBLIC,
    /** Anyone, unless the server has a metrics token: then that token (Authorization: Bearer). */
    METRICS,
    /**
     * A workspace API key (Authorization: Bearer) whose role is among the row's, within the key's
     * request rate limit.
     */
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
