package dev.agentauth.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.spring.AuthenticatedUserExtractor;
import java.security.Principal;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.web.servlet.function.ServerRequest;

/** With {@code agentauth.mcp.user-id.source=jwt-claim}, the user id is a claim of the JWT. */
class JwtClaimsTest {

  private static ServerRequest request(Principal principal) {
    MockHttpServletRequest servlet = new MockHttpServletRequest("POST", "/mcp");
    servlet.setUserPrincipal(principal);
    servlet.addHeader("X-User-Id", "forged");
    return ServerRequest.create(servlet, List.of());
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
