package dev.agentauth.client.internal;

import dev.agentauth.model.ScopeEntry;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Client-side preconditions: what the client can know is wrong before any network call. Each
 * failure is an {@link IllegalArgumentException} whose message names the field, what was expected
 * and what was found. Not part of the public API.
 */
public final class Validation {

  /** Most scopes the service accepts in one check. */
  public static final int MAX_SCOPES_PER_CHECK = 20;

  /** Page size bounds of every list endpoint. */
  public static final int MIN_LIMIT = 1;

  /** Largest page size of every list endpoint. */
  public static final int MAX_LIMIT = 100;

  // The unambiguous part of the service's rules (decisions §2): local@domain.tld, and + followed
  // by 7-15 digits. The service applies its full rule set (bare digit runs included) itself.
  private static final Pattern EMAIL = Pattern.compile("^[^@\\s]+@[^@\\s.]+(\\.[^@\\s.]+)+$");
  private static final Pattern PHONE_PLUS = Pattern.compile("^\\+[0-9]{7,15}$");

  private Validation() {}

  /** Requires a non-blank string. */
  public static String text(String value, String field) {
    if (value == null) {
      throw new IllegalArgumentException("expected " + field + ", found none");
    }
    if (value.isBlank()) {
      throw new IllegalArgumentException(
          "expected " + field + " to be a non-blank string, found: \"" + value + "\"");
    }
    return value;
  }

  /**
   * Requires a non-blank path identifier other than {@code .} and {@code ..}, which URL resolution
   * would turn into a different path.
   */
  public static String id(String value, String field) {
    text(value, field);
    if (value.equals(".") || value.equals("..")) {
      throw new IllegalArgumentException(
          "expected " + field + " to be an identifier, found the path segment \"" + value + "\"");
    }
    return value;
  }

  /**
   * Requires a non-blank opaque identifier that does not look like a raw e-mail address or phone
   * number, which the service refuses ({@code pii_not_allowed}) because receipts keep it forever.
   */
  public static String opaqueId(String value, String field) {
    text(value, field);
    String v = value.strip();
    if (EMAIL.matcher(v).matches()) {
      throw new IllegalArgumentException(
          "expected "
              + field
              + " to be an opaque identifier, found what looks like a raw e-mail address;"
              + " use your internal id or UserIds.keyedHash(secret, email)");
    }
    if (PHONE_PLUS.matcher(v).matches()) {
      throw new IllegalArgumentException(
          "expected "
              + field
              + " to be an opaque identifier, found what looks like a phone number;"
              + " use your internal id");
    }
    return value;
  }

  /** Requires a non-empty list of distinct, non-blank scope names; returns an immutable copy. */
  public static List<String> scopeNames(Collection<String> scopes, String field) {
    if (scopes == null || scopes.isEmpty()) {
      throw new IllegalArgumentException(
          "expected at least one scope in " + field + ", found none");
    }
    Set<String> seen = new HashSet<>();
    int i = 0;
    for (String s : scopes) {
      text(s, field + "[" + i + "]");
      if (!seen.add(s)) {
        throw new IllegalArgumentException(
            "expected distinct scopes in " + field + ", found \"" + s + "\" twice");
      }
      i++;
    }
    return List.copyOf(scopes);
  }

  /** Requires a non-empty list of scope entries with distinct, non-blank names. */
  public static List<ScopeEntry> scopeEntries(Collection<ScopeEntry> scopes, String field) {
    if (scopes == null || scopes.isEmpty()) {
      throw new IllegalArgumentException(
          "expected at least one scope in " + field + ", found none");
    }
    Set<String> seen = new HashSet<>();
    int i = 0;
    for (ScopeEntry e : scopes) {
      Objects.requireNonNull(e, field + "[" + i + "]");
      text(e.name(), field + "[" + i + "].name");
      if (!seen.add(e.name())) {
        throw new IllegalArgumentException(
            "expected distinct scope names in " + field + ", found \"" + e.name() + "\" twice");
      }
      i++;
    }
    return new ArrayList<>(scopes);
  }

  /** Returns the names of scope entries, in order. */
  public static Set<String> names(Collection<ScopeEntry> scopes) {
    Set<String> names = new LinkedHashSet<>();
    for (ScopeEntry e : scopes) {
      names.add(e.name());
    }
    return names;
  }

  /** Requires every element of {@code subset} to be one of {@code scopes}, without duplicates. */
  public static void subsetOf(Collection<String> subset, Set<String> scopes, String field) {
    if (subset == null) {
      return;
    }
    Set<String> seen = new HashSet<>();
    for (String s : subset) {
      text(s, field + " entry");
      if (!scopes.contains(s)) {
        throw new IllegalArgumentException(
            "expected " + field + " to name scopes of " + scopes + ", found \"" + s + "\"");
      }
      if (!seen.add(s)) {
        throw new IllegalArgumentException(
            "expected distinct scopes in " + field + ", found \"" + s + "\" twice");
      }
    }
  }

  /** Requires non-blank, distinct entries (a {@code null} list is absent and passes). */
  public static void distinct(Collection<String> values, String field) {
    if (values == null) {
      return;
    }
    Set<String> seen = new HashSet<>();
    for (String s : values) {
      text(s, field + " entry");
      if (!seen.add(s)) {
        throw new IllegalArgumentException(
            "expected distinct scopes in " + field + ", found \"" + s + "\" twice");
      }
    }
  }

  /** Requires a non-negative number. */
  public static long nonNegative(long value, String field) {
    if (value < 0) {
      throw new IllegalArgumentException(
          "expected " + field + " to be zero or more, found: " + value);
    }
    return value;
  }

  /** Requires a page size of 1–100. */
  public static int limit(int limit) {
    if (limit < MIN_LIMIT || limit > MAX_LIMIT) {
      throw new IllegalArgumentException(
          "expected limit in " + MIN_LIMIT + "-" + MAX_LIMIT + ", found: " + limit);
    }
    return limit;
  }
}
