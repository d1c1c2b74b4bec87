package dev.agentauth.server.store.jdbc;

import dev.agentauth.server.store.StoreException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * How the SQL stores keep a check's {@code context} once instead of once per scope receipt
 * (migrations PostgreSQL V9, SQLite V10). A receipt whose top-level {@code context} value is longer
 * than {@link #MIN_SHARED_CHARS} characters is stored cut: its payload (and its signed text, where
 * the store keeps it) without that value, the position the value was cut from ({@code context_at},
 * in UTF-16 code units) and the value's SHA-256 ({@code context_sha256}), which keys the value's
 * one row in {@code receipt_contexts} per workspace. Reading puts the value back at that position,
 * so the text read is the text written, byte for byte, whatever the scanner below makes of it. Rows
 * with a short or no context, and rows written before the migration, are stored whole.
 */
final class ReceiptContexts {

  /** Contexts up to this many characters stay in the receipt row: sharing them saves nothing. */
  static final int MIN_SHARED_CHARS = 256;

  private ReceiptContexts() {}

  /**
   * A receipt text as stored: {@code text} with {@code context} cut out at {@code at}, or whole
   * ({@code context} null).
   */
  record Cut(String text, Integer at, String sha256, String context) {

    boolean isCut() {
      return context != null;
    }

    /** Another text with the same context at the same place (its signed form), cut the same way. */
    String cutAlike(String whole) {
      if (whole == null || !isCut()) {
        return whole;
      }
      if (!whole.regionMatches(at, context, 0, context.length())) {
        throw new IllegalArgumentException("the signed text does not hold the payload's context");
      }
      return whole.substring(0, at) + whole.substring(at + context.length());
    }
  }

  /** {@code text} as stored: cut when its top-level context is long enough. */
  static Cut cut(String text) {
    int[] span = topLevelContext(text);
    if (span == null || span[1] - span[0] <= MIN_SHARED_CHARS) {
      return new Cut(text, null, null, null);
    }
    String context = text.substring(span[0], span[1]);
    String rest = text.substring(0, span[0]) + text.substring(span[1]);
    return new Cut(rest, span[0], sha256(context), context);
  }

  /** The text a stored one was cut from ({@code at} null: stored whole). */
  static String join(String stored, Integer at, String context) {
    if (stored == null || at == null) {
      return stored;
    }
    if (context == null) {
      throw new StoreException("a receipt's shared context is missing from receipt_contexts");
    }
    return new StringBuilder(stored.length() + context.length())
        .append(stored, 0, at)
        .append(context)
        .append(stored, at, stored.length())
        .toString();
  }

  static String sha256(String s) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Where the value of the top-level member {@code "context"} of a JSON object text starts and ends
   * (end exclusive), or null when there is none or the text is not an object. One pass.
   */
  static int[] topLevelContext(String s) {
    int n = s.length();
    int i = skipWhitespace(s, 0);
    if (i >= n || s.charAt(i) != '{') {
      return null;
    }
    int depth = 0;
    boolean expectKey = false;
    for (; i < n; i++) {
      char c = s.charAt(i);
      if (c == '"') {
        int end = endOfString(s, i);
        if (end < 0) {
          return null;
        }
        if (depth == 1 && expectKey) {
          expectKey = false;
          if (end == i + 8 && s.startsWith("context", i + 1)) {
            int j = skipWhitespace(s, end + 1);
            if (j >= n || s.charAt(j) != ':') {
              return null;
            }
            j = skipWhitespace(s, j + 1);
            int valueEnd = endOfValue(s, j);
            return valueEnd < 0 ? null : new int[] {j, valueEnd};
          }
        }
        i = end;
      } else if (c == '{' || c == '[') {
        depth++;
        expectKey = depth == 1;
      } else if (c == '}' || c == ']') {
        depth--;
      } else if (c == ',' && depth == 1) {
        expectKey = true;
      }
    }
    return null;
  }

  private static int skipWhitespace(String s, int i) {
    while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) {
      i++;
    }
    return i;
  }

  /** The index of the quote closing the string that opens at {@code i}, or -1. */
  private static int endOfString(String s, int i) {
    for (int j = i + 1; j < s.length(); j++) {
      char c = s.charAt(j);
      if (c == '\\') {
        j++;
      } else if (c == '"') {
        return j;
      }
    }
    return -1;
  }

  /** The index just after the JSON value that starts at {@code i}, or -1. */
  private static int endOfValue(String s, int i) {
    int n = s.length();
    if (i >= n) {
      return -1;
    }
    char first = s.charAt(i);
    if (first == '"') {
      int end = endOfString(s, i);
      return end < 0 ? -1 : end + 1;
    }
    if (first != '{' && first != '[') {
      int j = i;
      while (j < n && ",}] \t\r\n".indexOf(s.charAt(j)) < 0) {
        j++;
      }
      return j == i ? -1 : j;
    }
    int depth = 0;
    for (int j = i; j < n; j++) {
      char c = s.charAt(j);
      if (c == '"') {
        j = endOfString(s, j);
        if (j < 0) {
          return -1;
        }
      } else if (c == '{' || c == '[') {
        depth++;
      } else if ((c == '}' || c == ']') && --depth == 0) {
        return j + 1;
      }
    }
    return -1;
  }
}
