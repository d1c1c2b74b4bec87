package dev.agentauth.server.service;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentauth.model.AgentAuthJson;
import dev.agentauth.server.service.ServiceException.FieldProblem;
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

  /** Field problems listed in one answer; more are counted in its {@code detail}, not listed. */
  public static final int MAX_REPORTED = 20;

  private static final Pattern SCOPE = Pattern.compile("[A-Za-z0-9._:/-]{1,200}");
  private static final Pattern EMAIL = Pattern.compile("[^@\\s]+@[^@\\s.]+(\\.[^@\\s.]+)+");
  private static final Pattern PHONE_SHAPE = Pattern.compile("\\+?\\(?\\d[\\d .()\\-]*\\d\\)?");

  private final List<FieldProblem> problems = new ArrayList<>();

  /**
   * Records a problem with {@code field}. At most {@link #MAX_REPORTED} are kept, and validation of
   * an opaque object stops there; the answer then says that the list is not complete.
   */
  public Validation add(String field, String message) {
    if (problems.size() < MAX_REPORTED) {
      problems.add(new FieldProblem(field, message));
    }
    return this;
  }

  public boolean ok() {
    return problems.isEmpty();
  }

  /** Throws the collected problems as one 400 {@code invalid_request}, if there are any. */
  public void throwIfInvalid() {
    if (!problems.isEmpty()) {
      throw full()
          ? ServiceException.invalidTruncated(problems)
          : ServiceException.invalid(problems);
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
      throw new ServiceException.Builder(
              ErrorCode.PII_NOT_ALLOWED,
              field
                  + " looks like a raw e-mail address or phone number; send an opaque id"
                  + " (an internal id or a keyed hash) instead")
          .field(field, "looks like a raw e-mail address or phone number")
          .build();
    }
  }

  /**
   * An opaque JSON object ({@code metadata}, {@code context}): at most 16 KiB serialized, nesting
   * depth at most 16, member names at most 256 characters, integers only within ±(2^53 − 1).
   *
   * <p>The size is measured first, and the measuring stops at the first byte past the limit, so an
   * oversized object (up to the 1 MiB body) costs no more than reading it once and is reported as
   * one error. Only an object within the size is walked; its paths are built only for the values
   * reported, and at most {@link #MAX_REPORTED} problems are kept.
   */
  public void opaqueObject(String field, JsonNode node) {
    if (node == null || node.isNull() || node.isMissingNode()) {
      return;
    }
    if (!node.isObject()) {
      add(field, "must be a JSON object");
      return;
    }
    long size = SerializedSize.of(node, MAX_OBJECT_BYTES);
    if (size > MAX_OBJECT_BYTES) {
      add(field, "must be at most " + MAX_OBJECT_BYTES + " bytes serialized, got more");
      return;
    }
    new Walk(field).node(node, 1);
  }

  /**
   * One depth-first walk over an opaque object. The path to the current node is kept as a stack of
   * segments and joined into a string only when a problem is reported.
   */
  private final class Walk {
    private final String root;
    private final java.util.ArrayDeque<Object> segments = new java.util.ArrayDeque<>();

    Walk(String root) {
      this.root = root;
    }

    /** False once enough problems are recorded: the walk stops. */
    boolean node(JsonNode node, int depth) {
      if (full()) {
        return false;
      }
      if (node.isContainerNode()) {
        if (depth > MAX_DEPTH) {
          add(path(), "nests deeper than " + MAX_DEPTH + " levels");
          return !full();
        }
        if (node.isObject()) {
          for (Map.Entry<String, JsonNode> e : node.properties()) {
            segments.addLast(e.getKey());
            boolean more = true;
            if (e.getKey().length() > MAX_ID) {
              add(path(), "member names must be at most " + MAX_ID + " characters");
              more = !full();
            }
            more = more && node(e.getValue(), depth + 1);
            segments.removeLast();
            if (!more) {
              return false;
            }
          }
        } else {
          for (int i = 0; i < node.size(); i++) {
            segments.addLast(i);
            boolean more = node(node.get(i), depth + 1);
            segments.removeLast();
            if (!more) {
              return false;
            }
          }
        }
      } else if (node.isNumber()) {
        if (!node.isIntegralNumber()
            || !node.canConvertToLong()
            // Not Math.abs: it leaves Long.MIN_VALUE negative.
            || node.longValue() > MAX_SAFE
            || node.longValue() < -MAX_SAFE) {
          add(path(), "numbers must be integers within ±(2^53-1), got " + clip(node.asText()));
        }
      }
      return !full();
    }

    private String path() {
      StringBuilder sb = new StringBuilder(root);
      for (Object s : segments) {
        if (s instanceof Integer i) {
          sb.append('[').append(i).append(']');
        } else {
          sb.append('.').append(clip((String) s));
        }
      }
      return sb.toString();
    }
  }

  private boolean full() {
    return problems.size() >= MAX_REPORTED;
  }

  /**
   * An expiry: in the future and at most 366 days ahead of {@code now}. The message names the
   * server's time, which on a test clock is not the caller's.
   */
  public void expiry(String field, Instant expiresAt, Instant now) {
    if (expiresAt == null) {
      return;
    }
    if (!expiresAt.isAfter(now)) {
      add(
          field,
          "must be in the future (the server's time is " + AgentAuthJson.formatInstant(now) + ")");
    } else if (expiresAt.isAfter(now.plus(Duration.ofDays(366)))) {
      add(
          field,
          "must be at most 366 days ahead of the server's time ("
              + AgentAuthJson.formatInstant(now)
              + ")");
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

  /** The first 57 characters and "..." when longer than 60; never splits a surrogate pair. */
  static String clip(String s) {
    if (s.length() <= 60) {
      return s;
    }
    int end = Character.isHighSurrogate(s.charAt(56)) ? 56 : 57;
    return s.substring(0, end) + "...";
  }

  /**
   * The constant whose wire name is {@code raw}, null when {@code raw} is null; 400 naming {@code
   * field} and listing the wire names for any other value.
   */
  static <K extends Enum<K>> K known(
      String field, String raw, K[] values, java.util.function.Function<K, String> wireName) {
    if (raw == null) {
      return null;
    }
    for (K k : values) {
      if (wireName.apply(k).equals(raw)) {
        return k;
      }
    }
    java.util.StringJoiner names = new java.util.StringJoiner(", ");
    for (K k : values) {
      names.add(wireName.apply(k));
    }
    throw ServiceException.invalid(field, "must be one of " + names);
  }
}
