package dev.agentauth.verifier.vectors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * A deliberately plain second implementation of the receipt canonical form, written from {@code
 * docs/receipt-format.md} and independent of {@link dev.agentauth.verifier.Canonicalizer}: the
 * vector generator signs what this class produces, and the tests check that the library's
 * canonicalizer agrees byte for byte.
 *
 * <p>It can also make one of the classic canonicalization mistakes on purpose ({@link Mistake}):
 * the generator signs such wrong payloads to build invalid vectors that only a verifier with that
 * very mistake would accept.
 */
final class ReferenceCanonicalForm {

  /** 2^53 - 1, the largest magnitude a canonical number may have. */
  static final BigInteger MAX_SAFE = BigInteger.ONE.shiftLeft(53).subtract(BigInteger.ONE);

  /** A way to get the canonical form wrong; {@link #NONE} gets it right. */
  enum Mistake {
    /** None: the canonical form. */
    NONE,
    /**
     * Writes {@code \b \t \n \f \r} as two-character escapes instead of <code>&#92;u00xx</code>.
     */
    SHORT_ESCAPES,
    /** Writes the hex digits of <code>&#92;u00xx</code> escapes in upper case. */
    UPPERCASE_HEX,
    /**
     * Escapes every non-ASCII character as <code>&#92;uXXXX</code> (surrogate pairs beyond the
     * BMP).
     */
    ESCAPE_NON_ASCII,
    /** Escapes {@code /} as {@code \/}. */
    ESCAPE_SOLIDUS,
    /** Escapes U+007F DELETE as <code>&#92;u007f</code>. */
    ESCAPE_DEL,
    /** Sorts object keys by Unicode code point instead of by UTF-16 code unit. */
    CODE_POINT_KEY_ORDER,
    /** Leaves out object members whose value is {@code null}. */
    OMIT_NULL_MEMBERS,
    /** Pretty-prints: newlines and two-space indentation, a space after {@code :}. */
    WHITESPACE
  }

  private ReferenceCanonicalForm() {}

  /** The canonical form of {@code receipt} without its top-level {@code signature} member. */
  static String signingPayload(ObjectNode receipt) {
    return signingPayload(receipt, Mistake.NONE);
  }

  /** Like {@link #signingPayload(ObjectNode)}, making {@code mistake}. */
  static String signingPayload(ObjectNode receipt, Mistake mistake) {
    ObjectNode copy = receipt.deepCopy();
    copy.remove("signature");
    return of(copy, mistake);
  }

  /** The canonical form of any JSON value, making {@code mistake}. */
  static String of(JsonNode value, Mistake mistake) {
    StringBuilder out = new StringBuilder();
    write(value, mistake, 0, out);
    return out.toString();
  }

  private static void write(JsonNode v, Mistake m, int depth, StringBuilder out) {
    if (v.isObject()) {
      List<String> keys = new ArrayList<>();
      v.fieldNames().forEachRemaining(keys::add);
      keys.sort(
          m == Mistake.CODE_POINT_KEY_ORDER
              ? ReferenceCanonicalForm::compareCodePoints
              : Comparator.naturalOrder());
      out.append('{');
      boolean first = true;
      for (String key : keys) {
        JsonNode child = v.get(key);
        if (m == Mistake.OMIT_NULL_MEMBERS && child.isNull()) {
          continue;
        }
        if (!first) {
          out.append(',');
        }
        first = false;
        newline(m, depth + 1, out);
        writeString(key, m, out);
        out.append(':');
        if (m == Mistake.WHITESPACE) {
          out.append(' ');
        }
        write(child, m, depth + 1, out);
      }
      if (!first) {
        newline(m, depth, out);
      }
      out.append('}');
    } else if (v.isArray()) {
      out.append('[');
      for (int i = 0; i < v.size(); i++) {
        if (i > 0) {
          out.append(',');
        }
        newline(m, depth + 1, out);
        write(v.get(i), m, depth + 1, out);
      }
      if (v.size() > 0) {
        newline(m, depth, out);
      }
      out.append(']');
    } else if (v.isTextual()) {
      writeString(v.textValue(), m, out);
    } else if (v.isNumber()) {
      if (!v.isIntegralNumber()) {
        throw new IllegalArgumentException("no canonical form: non-integer number " + v);
      }
      BigInteger n = v.bigIntegerValue();
      if (n.abs().compareTo(MAX_SAFE) > 0) {
        throw new IllegalArgumentException("no canonical form: unsafe integer " + n);
      }
      out.append(n);
    } else if (v.isBoolean()) {
      out.append(v.booleanValue());
    } else if (v.isNull()) {
      out.append("null");
    } else {
      throw new IllegalArgumentException("not a JSON value: " + v.getNodeType());
    }
  }

  private static void newline(Mistake m, int depth, StringBuilder out) {
    if (m == Mistake.WHITESPACE) {
      out.append('\n').append("  ".repeat(depth));
    }
  }

  private static void writeString(String s, Mistake m, StringBuilder out) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        if (m == Mistake.ESCAPE_NON_ASCII) {
          out.append(u4(c)).append(u4(s.charAt(i + 1)));
        } else {
          out.append(c).append(s.charAt(i + 1));
        }
        i++;
      } else if (Character.isSurrogate(c)) {
        throw new IllegalArgumentException("no canonical form: lone surrogate in " + s);
      } else if (c == '"') {
        out.append("\\\"");
      } else if (c == '\\') {
        out.append("\\\\");
      } else if (c < 0x20) {
        String shortEscape = shortEscape(c);
        if (m == Mistake.SHORT_ESCAPES && shortEscape != null) {
          out.append(shortEscape);
        } else {
          String hex = String.format(Locale.ROOT, "%02x", (int) c);
          out.append("\\u00")
              .append(m == Mistake.UPPERCASE_HEX ? hex.toUpperCase(Locale.ROOT) : hex);
        }
      } else if (c == '/' && m == Mistake.ESCAPE_SOLIDUS) {
        out.append("\\/");
      } else if (c == 0x7F && m == Mistake.ESCAPE_DEL) {
        out.append("\\u007f");
      } else if (c >= 0x80 && m == Mistake.ESCAPE_NON_ASCII) {
        out.append(u4(c));
      } else {
        out.append(c);
      }
    }
    out.append('"');
  }

  private static String shortEscape(char c) {
    return switch (c) {
      case '\b' -> "\\b";
      case '\t' -> "\\t";
      case '\n' -> "\\n";
      case '\f' -> "\\f";
      case '\r' -> "\\r";
      default -> null;
    };
  }

  private static String u4(char c) {
    return String.format(Locale.ROOT, "\\u%04x", (int) c);
  }

  private static int compareCodePoints(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      int ca = a.codePointAt(i);
      int cb = b.codePointAt(j);
      if (ca != cb) {
        return Integer.compare(ca, cb);
      }
      i += Character.charCount(ca);
      j += Character.charCount(cb);
    }
    return Integer.compare(a.length() - i, b.length() - j);
  }
}
