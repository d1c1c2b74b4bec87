package dev.agentauth.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayDeque;
import java.util.Map;

/**
 * Finds a string holding an unpaired UTF-16 surrogate ({@code "\ud800"}) anywhere in a request: a
 * member name or a string value, at any depth. JSON's {@code \\u} escapes can spell one, but it is
 * not a Unicode character: it cannot be stored as UTF-8, canonicalized or signed, so such a request
 * is rejected whole, before anything reads it (decisions.md §16). One pass over the tree; the path
 * is built only for the string found.
 */
final class UnpairedSurrogates {
  private UnpairedSurrogates() {}

  /** The path of the first string with an unpaired surrogate ({@code context.tags[2]}), or null. */
  static String find(JsonNode root) {
    ArrayDeque<Object> path = new ArrayDeque<>();
    return walk(root, path, s -> !valid(s)) ? render(path) : null;
  }

  /**
   * The path of the first string holding U+0000, or null. JSON can spell it (the escape of code
   * point 0, or the overlong bytes {@code C0 80} that the parser decodes to it), but PostgreSQL
   * cannot store it in a text column, so every store refuses it alike, before anything reads the
   * request.
   */
  static String findNul(JsonNode root) {
    ArrayDeque<Object> path = new ArrayDeque<>();
    return walk(root, path, s -> s.indexOf('\u0000') >= 0) ? render(path) : null;
  }

  private static boolean walk(
      JsonNode node, ArrayDeque<Object> path, java.util.function.Predicate<String> bad) {
    if (node.isTextual()) {
      return bad.test(node.textValue());
    }
    if (node.isObject()) {
      for (Map.Entry<String, JsonNode> e : node.properties()) {
        path.addLast(e.getKey());
        if (bad.test(e.getKey()) || walk(e.getValue(), path, bad)) {
          return true;
        }
        path.removeLast();
      }
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        path.addLast(i);
        if (walk(node.get(i), path, bad)) {
          return true;
        }
        path.removeLast();
      }
    }
    return false;
  }

  /** Whether every surrogate in {@code s} is half of a high-low pair. */
  static boolean valid(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)) {
        if (i + 1 == s.length() || !Character.isLowSurrogate(s.charAt(i + 1))) {
          return false;
        }
        i++;
      } else if (Character.isLowSurrogate(c)) {
        return false;
      }
    }
    return true;
  }

  /** {@code s} with every surrogate that is not half of a pair replaced by U+FFFD. */
  static String replace(String s) {
    if (valid(s)) {
      return s;
    }
    StringBuilder sb = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        sb.append(c).append(s.charAt(++i));
      } else {
        sb.append(Character.isSurrogate(c) ? '\ufffd' : c);
      }
    }
    return sb.toString();
  }

  /**
   * Appends a member name as an error may show it: its first 57 characters (then "..."), every
   * surrogate not part of a pair shown as U+FFFD, so the answer itself is valid Unicode.
   */
  private static void appendShown(StringBuilder sb, String name) {
    int end = name.length() > 60 ? 57 : name.length();
    for (int i = 0; i < end; i++) {
      char c = name.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < end
          && Character.isLowSurrogate(name.charAt(i + 1))) {
        sb.append(c).append(name.charAt(++i));
      } else {
        sb.append(Character.isSurrogate(c) ? '\ufffd' : c);
      }
    }
    if (end < name.length()) {
      sb.append("...");
    }
  }

  private static String render(ArrayDeque<Object> path) {
    StringBuilder sb = new StringBuilder();
    for (Object segment : path) {
      if (segment instanceof Integer i) {
        sb.append('[').append(i).append(']');
      } else {
        if (sb.length() > 0) {
          sb.append('.');
        }
        appendShown(sb, (String) segment);
      }
    }
    return sb.length() == 0 ? "body" : sb.toString();
  }
}
