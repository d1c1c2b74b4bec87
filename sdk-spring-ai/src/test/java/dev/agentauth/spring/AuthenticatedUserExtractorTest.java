package dev.agentauth.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.common.McpTransportContext;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.oauth2.jwt.Jwt;
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

  @Test
  void aJwtClaimCanBeTheUserIdAndAPrincipalWithoutItHasNone() {
    Jwt jwt =
        Jwt.withTokenValue("t")
            .header("alg", "none")
            .subject("sub-1")
            .claim("user_id", "u_42")
            .issuedAt(Instant.now())
            .build();
    AuthenticatedUserExtractor byClaim = new AuthenticatedUserExtractor(JwtClaims.claim("user_id"));

    assertThat(
            byClaim
                .extract(
                    request(
                        UsernamePasswordAuthenticationToken.authenticated(jwt, null, List.of())))
                .get(AuthenticatedUserExtractor.USER_ID_KEY))
        .isEqualTo("u_42");
    assertThat(
            byClaim
                .extract(
                    request(
                        UsernamePasswordAuthenticationToken.authenticated(
                            "alice", null, List.of())))
                .get(AuthenticatedUserExtractor.USER_ID_KEY))
        .isNull();
    assertThat(
            new AuthenticatedUserExtractor(JwtClaims.claim("missing"))
                .extract(
                    request(
                        UsernamePasswordAuthenticationToken.authenticated(jwt, null, List.of())))
                .get(AuthenticatedUserExtractor.USER_ID_KEY))
        .isNull();
  }
}
