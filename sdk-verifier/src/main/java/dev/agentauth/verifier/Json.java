package dev.agentauth.verifier;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.TextNode;

/** The one JSON reader of this module: strict duplicate detection, no trailing content. */
final class Json {

  /**
   * Shared and thread-safe. Floats stay doubles (not {@code BigDecimal}): the canonical form
   * rejects every non-integer anyway, and doubles are cheaper.
   */
  static final ObjectReader READER =
      JsonMapper.builder()
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .disable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .disable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
          .build()
          .readerFor(JsonNode.class);

  private Json() {}

  /** A one-line description of a parse error: Jackson's message without its source excerpt. */
  static String describe(JsonProcessingException e) {
    String message = e.getOriginalMessage();
    if (message == null) {
      message = e.getClass().getSimpleName();
    }
    int newline = message.indexOf('\n');
    if (newline >= 0) {
      message = message.substring(0, newline);
    }
    if (message.length() > 200) {
      message = message.substring(0, 200) + "...";
    }
    JsonLocation location = e.getLocation();
    if (location != null && location.getLineNr() > 0) {
      message += " (line " + location.getLineNr() + ", column " + location.getColumnNr() + ")";
    }
    return message;
  }

  /**
   * Whether {@code text}, which failed to parse as JSON, looks like a file name given where JSON
   * text was expected: one line of letters, digits, spaces and {@code - _ . / \ : ~ + @ % ( )},
   * holding a dot, slash or backslash ({@code keys.json}, {@code /tmp/keys}, {@code C:\keys.json}).
   */
  static boolean looksLikeFileName(String text) {
    String t = text.strip();
    if (t.isEmpty() || t.length() > 4096) {
      return false;
    }
    boolean separator = false;
    for (int i = 0; i < t.length(); i++) {
      char c = t.charAt(i);
      if (c == '.' || c == '/' || c == '\\') {
        separator = true;
      } else if (!Character.isLetterOrDigit(c) && "-_ :~+@%()".indexOf(c) < 0) {
        return false;
      }
    }
    return separator;
  }

  /** Renders text for a message: quoted, shortened to 80 characters, controls escaped. */
  static String show(String text) {
    return show(TextNode.valueOf(text));
  }

  /** Renders a member value for a message: strings quoted (and shortened), others by type. */
  static String show(JsonNode v) {
    if (v == null) {
      return "nothing";
    }
    if (v.isTextual()) {
      String s = v.textValue();
      if (s.length() > 80) {
        s = s.substring(0, 80) + "...";
      }
      StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
      for (int i = 0; i < s.length(); i++) {
        char c = s.charAt(i);
        if (c < 0x20 || c == 0x7F || Character.isSurrogate(c)) {
          sb.append("\\u").append(Integer.toHexString(0x10000 | c), 1, 5);
        } else {
          sb.append(c);
        }
      }
      return sb.append('"').toString();
    }
    if (v.isNumber() || v.isBoolean() || v.isNull()) {
      String t = Canonicalizer.typeName(v);
      return v.isNull() ? "null" : t + " " + v.asText();
    }
    return Canonicalizer.typeName(v);
  }
}
