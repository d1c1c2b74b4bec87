package dev.agentauth.examples.spring;

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
import org.springframework.http.HttpStatus;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.core.authority.SimpleGrantedAuthority;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.authentication.AnonymousAuthenticationFilter;
import org.springframework.security.web.authentication.HttpStatusEntryPoint;
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
    return http.csrf(csrf -> csrf.disable())
        .sessionManagement(s -> s.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
        .authorizeHttpRequests(
            auth ->
                auth.requestMatchers("/actuator/health").permitAll().anyRequest().authenticated())
        .exceptionHandling(
            e -> e.authenticationEntryPoint(new HttpStatusEntryPoint(HttpStatus.UNAUTHORIZED)))
        .addFilterBefore(new BearerTokenFilter(tokens), AnonymousAuthenticationFilter.class)
        .build();
  }

  /** Authenticates a request from its bearer token; no token or an unknown one stays anonymous. */
  static final class BearerTokenFilter extends OncePerRequestFilter {
    private final Tokens tokens;

    BearerTokenFilter(Tokens tokens) {
      this.tokens = tokens;
    }

    /**
     * Streamable HTTP answers tool calls asynchronously: the servlet request is dispatched again
     * (ASYNC) and authorized again, so it must be authenticated again, from the same header.
     */
    @Override
    protected boolean shouldNotFilterAsyncDispatch() {
      return false;
    }

    @Override
    protected void doFilterInternal(
        HttpServletRequest request, HttpServletResponse response, FilterChain chain)
        throws ServletException, IOException {
      String header = request.getHeader("Authorization");
      if (header != null && header.regionMatches(true, 0, "Bearer ", 0, 7)) {
        String user = tokens.userOf(header.substring(7).trim());
        if (user != null) {
          SecurityContextHolder.getContext()
              .setAuthentication(
                  UsernamePasswordAuthenticationToken.authenticated(
                      user, null, List.of(new SimpleGrantedAuthority("ROLE_USER"))));
        }
      }
      chain.doFilter(request, response);
    }
  }
}
