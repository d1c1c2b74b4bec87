package dev.agentauth.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.common.McpTransportContext;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.web.servlet.function.ServerRequest;

/** The user id of a WebMVC MCP request comes from its authenticated principal only. */
class AuthenticatedUserExtractorTest {

  private static ServerRequest request(java.security.Principal principal) {
    MockHttpServletRequest servlet = new MockHttpServletRequest("POST", "/mcp");
    servlet.setUserPrincipal(principal);
    servlet.addHeader("X-User-Id", "forged");
    return ServerRequest.create(servlet, List.of());
  }

  @Test
  void theAuthenticatedPrincipalsNameIsTheUserId() {
    McpTransportContext c =
        AuthenticatedUserExtractor.principalName()
            .extract(
                request(
                    UsernamePasswordAuthenticationToken.authenticated("alice", null, List.of())));

    assertThat(c.get(AuthenticatedUserExtractor.USER_ID_KEY)).isEqualTo("alice");
  }

  @Test
  void anUnauthenticatedRequestHasNoUserWhateverItsHeadersSay() {
    McpTransportContext c = AuthenticatedUserExtractor.principalName().extract(request(null));

    assertThat(c.get(AuthenticatedUserExtractor.USER_ID_KEY)).isNull();
  }
}
