package dev.agentauth.server.service;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentauth.server.http.ApiError;
import dev.agentauth.server.http.ApiError.FieldProblem;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Collects field errors for one request and throws them together as one 400. Every input limit of
 * the service lives here, so handlers state what they check and this class says how.
 */
public final class Validation {
  /** Largest integer a receipt may carry (2^53 − 1); every integer that can reach one is capped. */
  public static final long MAX_SAFE = 9_007_199_254_740_991L;

  public static final int MAX_ID = 256;
  public static final int MAX_TEXT = 2000;
  public static final int MAX_OBJECT_BYTES = 16 * 1024;
  public static final int MAX_DEPTH = 16;
  public static final int MAX_SCOPES = 100;
  public static final int MAX_CHECK_SCOPES = 20;

  private static final Pattern SCOPE = Pattern.compile("[A-Za-z0-9._:/-]{1,200}");
  private static final Pattern EMAIL = Pattern.compile("[^@\\s]+@[^@\\s.]+(\\.[^@\\s.]+)+");
  private static final Pattern PHONE_SHAPE = Pattern.compile("\\+?\\(?\\d[\\d .()\\-]*\\d\\)?");

  private final List<FieldProblem> problems = new ArrayList<>();

  /** Records a problem with {@code field}. */
  public Validation add(String field, String message) {
    problems.add(new FieldProblem(field, message));
    return this;
  }

  public boolean ok() {
    return problems.isEmpty();
  }

  /** Throws the collected problems as one 400 {@code invalid_request}, if there are any. */
  public void throwIfInvalid() {
    if (!problems.isEmpty()) {
      throw ApiError.invalid(problems);
    }
  }

  /** Whether a required value is present; records "is required" otherwise. */
  public boolean required(String field, Object value) {
    if (value == null) {
      add(field, "is required");
      return false;
    }
    return true;
  }

  /** An identifier-like string: 1–256 characters, no control characters. */
  public void identifier(String field, String value) {
    if (value == null) {
      return;
    }
    if (value.isEmpty() || value.length() > MAX_ID) {
      add(field, "must be 1 to " + MAX_ID + " characters, got " + value.length());
    } else if (hasControl(value)) {
      add(field, "must not contain control characters");
    }
  }

  /** Free text ({@code note}, {@code notes}, {@code description}): at most 2,000 characters. */
  public void text(String field, String value) {
    if (value != null && value.length() > MAX_TEXT) {
      add(field, "must be at most " + MAX_TEXT + " characters, got " + value.length());
    }
  }

  /** A scope name: 1–200 of {@code A-Z a-z 0-9 . _ - : /}, not starting or ending with a dot. */
  public void scopeName(String field, String value) {
    if (value == null) {
      add(field, "is required");
    } else if (!SCOPE.matcher(value).matches()) {
      add(
          field,
          "must be 1 to 200 characters from A-Z a-z 0-9 . _ - : /, got \"" + clip(value) + "\"");
    } else if (value.startsWith(".") || value.endsWith(".")) {
      add(field, "must not start or end with '.'");
    }
  }

  /** A list of scope names: non-empty, at most {@code max}, unique, each a valid name. */
  public void scopeNames(String field, List<String> names, int max) {
    if (names == null) {
      add(field, "is required");
      return;
    }
    if (names.isEmpty()) {
      add(field, "must not be empty");
      return;
    }
    if (names.size() > max) {
      add(field, "must have at most " + max + " entries, got " + names.size());
      return;
    }
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < names.size(); i++) {
      String name = names.get(i);
      scopeName(field + "[" + i + "]", name);
      if (name != null && !seen.add(name)) {
        add(field + "[" + i + "]", "duplicate scope \"" + clip(name) + "\"");
      }
    }
  }

  /** Every name in {@code subset} must be one of {@code scopes}. */
  public void subsetOf(String field, Collection<String> subset, Set<String> scopes) {
    if (subset == null) {
      return;
    }
    int i = 0;
    Set<String> seen = new HashSet<>();
    for (String name : subset) {
      String f = subset instanceof List ? field + "[" + i + "]" : field + "." + name;
      if (name == null) {
        add(f, "must be a scope name");
      } else if (!scopes.contains(name)) {
        add(f, "\"" + clip(name) + "\" is not one of the authorization's scopes");
      } else if (!seen.add(name)) {
        add(f, "duplicate scope \"" + clip(name) + "\"");
      }
      i++;
    }
  }

  /** A map of scope name to approver label. */
  public void escalationTargets(String field, Map<String, String> targets, Set<String> scopes) {
    if (targets == null) {
      return;
    }
    for (Map.Entry<String, String> e : targets.entrySet()) {
      String f = field + "." + e.getKey();
      if (!scopes.contains(e.getKey())) {
        add(f, "\"" + clip(e.getKey()) + "\" is not one of the authorization's scopes");
      }
      if (e.getValue() == null) {
        add(f, "must be an approver label");
      } else {
        identifier(f, e.getValue());
      }
    }
  }

  /** A non-negative integer no larger than 2^53 − 1 (so it can appear in a receipt). */
  public void nonNegative(String field, Long value) {
    if (value != null && (value < 0 || value > MAX_SAFE)) {
      add(field, "must be between 0 and " + MAX_SAFE + ", got " + value);
    }
  }

  /** An integer within {@code [min, max]}. */
  public void range(String field, Long value, long min, long max) {
    if (value != null && (value < min || value > max)) {
      add(field, "must be between " + min + " and " + max + ", got " + value);
    }
  }

  /** {@code user_id}, {@code agent_id}, {@code resolved_by}, {@code revoked_by}: no raw PII. */
  public static boolean looksLikePii(String value) {
    if (value == null) {
      return false;
    }
    String v = value.trim();
    if (EMAIL.matcher(v).matches()) {
      return true;
    }
    if (PHONE_SHAPE.matcher(v).matches()) {
      long digits = v.chars().filter(Character::isDigit).count();
      return digits >= 7 && digits <= 15;
    }
    return false;
  }

  /** Throws 400 {@code pii_not_allowed} when {@code value} looks like an e-mail or phone number. */
  public static void rejectPii(String field, String value) {
    if (looksLikePii(value)) {
      throw new ApiError.Builder(
              400,
              "pii_not_allowed",
              field
                  + " looks like a raw e-mail address or phone number; send an opaque id"
                  + " (an internal id or a keyed hash) instead")
          .field(field, "looks like a raw e-mail address or phone number")
          .build();
    }
  }

  /**
   * An opaque JSON object ({@code metadata}, {@code context}): at most 16 KiB serialized, nesting
   * depth at most 16, integers only within ±(2^53 − 1).
   */
  public void opaqueObject(String field, JsonNode node) {
    if (node == null || node.isNull() || node.isMissingNode()) {
      return;
    }
    if (!node.isObject()) {
      add(field, "must be a JSON object");
      return;
    }
    int before = problems.size();
    walk(field, node, 1);
    if (problems.size() == before) {
      int size = node.toString().getBytes(StandardCharsets.UTF_8).length;
      if (size > MAX_OBJECT_BYTES) {
        add(field, "must be at most " + MAX_OBJECT_BYTES + " bytes serialized, got " + size);
      }
    }
  }

  private void walk(String path, JsonNode node, int depth) {
    if (node.isContainerNode()) {
      if (depth > MAX_DEPTH) {
        add(path, "nests deeper than " + MAX_DEPTH + " levels");
        return;
      }
      if (node.isObject()) {
        for (Map.Entry<String, JsonNode> e : node.properties()) {
          walk(path + "." + e.getKey(), e.getValue(), depth + 1);
        }
      } else {
        for (int i = 0; i < node.size(); i++) {
          walk(path + "[" + i + "]", node.get(i), depth + 1);
        }
      }
    } else if (node.isNumber()) {
      if (!node.isIntegralNumber()
          || !node.canConvertToLong()
          || Math.abs(node.longValue()) > MAX_SAFE) {
        add(path, "numbers must be integers within ±(2^53-1), got " + node.asText());
      }
    }
  }

  /** An expiry: in the future and at most 366 days ahead of {@code now}. */
  public void expiry(String field, Instant expiresAt, Instant now) {
    if (expiresAt == null) {
      return;
    }
    if (!expiresAt.isAfter(now)) {
      add(field, "must be in the future");
    } else if (expiresAt.isAfter(now.plus(Duration.ofDays(366)))) {
      add(field, "must be at most 366 days ahead");
    }
  }

  private static boolean hasControl(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) {
        return true;
      }
    }
    return false;
  }

  static String clip(String s) {
    return s.length() <= 60 ? s : s.substring(0, 57) + "...";
  }
}
