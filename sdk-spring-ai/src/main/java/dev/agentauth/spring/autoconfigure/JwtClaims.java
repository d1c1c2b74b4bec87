package dev.agentauth.spring.autoconfigure;

import java.security.Principal;
import java.util.function.Function;
import org.springframework.security.core.Authentication;
import org.springframework.security.oauth2.jwt.Jwt;

/** Reads a claim of the JWT behind a Spring Security authentication (loaded only when used). */
final class JwtClaims {

  private JwtClaims() {}

  static boolean available() {
    return isPresent("org.springframework.security.oauth2.jwt.Jwt")
        && isPresent("org.springframework.security.core.Authentication");
  }

  /** Returns the function reading {@code claim} as a string; non-JWT principals have none. */
  static Function<Principal, String> claim(String claim) {
    return principal -> {
      if (principal instanceof Authentication a && a.getPrincipal() instanceof Jwt jwt) {
        Object value = jwt.getClaims().get(claim);
        return value == null ? null : value.toString();
      }
      return null;
    };
  }

  private static boolean isPresent(String className) {
    try {
      Class.forName(className, false, JwtClaims.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }
}
