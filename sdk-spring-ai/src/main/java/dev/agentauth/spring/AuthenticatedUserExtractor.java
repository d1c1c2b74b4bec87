package dev.agentauth.spring;

import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpTransportContextExtractor;
import java.security.Principal;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.springframework.web.servlet.function.ServerRequest;

/**
 * Puts the authenticated caller's user id into the MCP transport context of every request of a
 * Spring WebMVC MCP server (streamable HTTP or stateless), under {@link #USER_ID_KEY}, where the
 * guard's user id source reads it. The id comes from the request's authenticated principal ({@code
 * HttpServletRequest.getUserPrincipal()}: Spring Security's authentication, or the container's),
 * never from the MCP message: the model cannot change it. A request without an authenticated
 * principal gets an empty context, and its tool calls are denied locally with {@code
 * missing_user_id}.
 *
 * <p>Runs on the servlet request thread, so it works for sync, async and stateless servers alike.
 * Thread-safe.
 */
public final class AuthenticatedUserExtractor
    implements McpTransportContextExtractor<ServerRequest> {

  /** The transport context key holding the user id: {@value}. */
  public static final String USER_ID_KEY = "dev.agentauth/user_id";

  private final Function<Principal, String> userId;

  /**
   * @param userId the user id of an authenticated principal (e.g. its name, or a JWT claim), or
   *     {@code null} when it has none
   */
  public AuthenticatedUserExtractor(Function<Principal, String> userId) {
    this.userId = Objects.requireNonNull(userId, "userId");
  }

  /** Returns the extractor using the principal's name as the user id. */
  public static AuthenticatedUserExtractor principalName() {
    return new AuthenticatedUserExtractor(Principal::getName);
  }

  @Override
  public McpTransportContext extract(ServerRequest request) {
    Principal principal = request.principal().orElse(null);
    if (principal == null) {
      return McpTransportContext.EMPTY;
    }
    String id = userId.apply(principal);
    if (id == null || id.isBlank()) {
      return McpTransportContext.EMPTY;
    }
    return McpTransportContext.create(Map.of(USER_ID_KEY, id));
  }
}
