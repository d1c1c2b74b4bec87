package dev.agentauth.examples.spring;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.core.authority.SimpleGrantedAuthority;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.authentication.AnonymousAuthenticationFilter;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Spring Security for the example: every request to the MCP endpoint needs {@code Authorization:
 * Bearer <token>}, and {@code notes.tokens} maps each token to its user. A stand-in for the
 * application's real authentication (OAuth2 resource server, sessions, ...): the starter only reads
 * the authenticated principal.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(BearerTokenSecurity.Tokens.class)
public class BearerTokenSecurity {

  /** {@code notes.tokens}: bearer token to user id. */
  @ConfigurationProperties("notes")
  public record Tokens(Map<String, String> tokens) {
    public Tokens {
      tokens = tokens == null ? Map.of() : Map.copyOf(tokens);
    }

    /** Returns the user of {@code token}, comparing in constant time, or {@code null}. */
    String userOf(String token) {
      byte[] presented = token.getBytes(StandardCharsets.UTF_8);
      String user = null;
      for (Map.Entry<String, String> e : tokens.entrySet()) {
        if (MessageDigest.isEqual(presented, e.getKey().getBytes(StandardCharsets.UTF_8))) {
          user = e.getValue();
        }
      }
      return user;
    }
  }

  @Bean
  SecurityFilterChain mcpSecurity(HttpSecurity http, Tokens tokens) throws Exception {
    // spotless:off
    // @start region="security-filter-chain"
    return http.csrf(csrf -> csrf.disable())
        .sessionManagement(s -> s.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
        .authorizeHttpRequests(auth -> auth
            // Streamable HTTP answers a call on an ASYNC dispatch of the request already
            // authorized: the response is committed by then, so a denial could only be logged.
            .dispatcherTypeMatchers(DispatcherType.ASYNC).permitAll()
            .requestMatchers("/actuator/health").permitAll()
            .anyRequest().authenticated())
        .exceptionHandling(e -> e.authenticationEntryPoint(BearerTokenSecurity::unauthorized))
        .addFilterBefore(new BearerTokenFilter(tokens), AnonymousAuthenticationFilter.class)
        .build();
    // @end region="security-filter-chain"
    // spotless:on
  }

  /**
   * 401 as RFC 6750 and RFC 9457 describe it: {@code WWW-Authenticate: Bearer} (with {@code
   * error="invalid_token"} when a token was sent but is unknown) and a problem+json body naming the
   * header.
   */
  static void unauthorized(
      HttpServletRequest request, HttpServletResponse response, AuthenticationException cause)
      throws IOException {
    boolean tokenSent = bearerToken(request) != null;
    response.setStatus(HttpServletResponse.SC_UNAUTHORIZED);
    response.setHeader("WWW-Authenticate", tokenSent ? "Bearer error=\"invalid_token\"" : "Bearer");
    response.setContentType("application/problem+json");
    response.setCharacterEncoding("UTF-8");
    response
        .getWriter()
        .write(
            "{\"type\":\"about:blank\",\"title\":\"Unauthorized\",\"status\":401,"
                + "\"detail\":\""
                + (tokenSent
                    ? "the bearer token in the Authorization header is not known"
                    : "the Authorization header is missing: send Authorization: Bearer <token>")
                + "\"}");
  }

  /** Returns the token of an {@code Authorization: Bearer} header, or {@code null}. */
  static String bearerToken(HttpServletRequest request) {
    String header = request.getHeader("Authorization");
    if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return null;
    }
    String token = header.substring(7).trim();
    return token.isEmpty() ? null : token;
  }

  // @start region="bearer-token-filter"
  /** Authenticates a request from its bearer token; no token or an unknown one stays anonymous. */
  static final class BearerTokenFilter extends OncePerRequestFilter {
    private final Tokens tokens;

    BearerTokenFilter(Tokens tokens) {
      this.tokens = tokens;
    }

    // The ASYNC dispatch of a streamable-HTTP call is a new pass through the filter chain:
    // authenticate it again, from the same header, so that it carries the same principal.
    @Override
    protected boolean shouldNotFilterAsyncDispatch() {
      return false;
    }

    @Override
    protected void doFilterInternal(
        HttpServletRequest request, HttpServletResponse response, FilterChain chain)
        throws ServletException, IOException {
      String token = bearerToken(request);
      String user = token == null ? null : tokens.userOf(token);
      if (user != null) {
        SecurityContextHolder.getContext()
            .setAuthentication(
                UsernamePasswordAuthenticationToken.authenticated(
                    user, null, List.of(new SimpleGrantedAuthority("ROLE_USER"))));
      }
      chain.doFilter(request, response);
    }
  }
  // @end region="bearer-token-filter"
}
