package dev.agentauth.verifier;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The canonical JSON form of receipts: the exact bytes a receipt signature covers.
 *
 * <p>The form is close to RFC 8785 (JCS) but not a subset of it (every control character is a
 * six-character escape with lowercase hex, where JCS writes the short forms such as a backslash and
 * {@code n}), defined by the receipt format:
 *
 * <ul>
 *   <li>UTF-8 without BOM, no whitespace between tokens, {@code ,} and {@code :} as separators;
 *   <li>object members sorted by key, comparing UTF-16 code units ({@link String#compareTo}),
 *       recursively; arrays keep their order;
 *   <li>strings escape only {@code "} as {@code \"}, {@code \} as {@code \\} and U+0000–U+001F as
 *       <code>&#92;u00xx</code> with lower-case hex (a newline is <code>&#92;u000a</code>); every
 *       other character, non-ASCII included, is written raw; a lone surrogate has no canonical
 *       form;
 *   <li>numbers must be integers within ±(2<sup>53</sup>−1), written as plain decimal digits with a
 *       leading {@code -} when negative; any floating-point node (even {@code 1.0} or {@code 1e3})
 *       and any integer outside that range has no canonical form;
 *   <li>{@code true}, {@code false}, {@code null}.
 * </ul>
 *
 * <p>The signer and the verifier both use {@link #signingPayload(ObjectNode)}: the receipt without
 * its top-level {@code signature} member.
 *
 * <pre>{@code
 * ObjectNode receipt = (ObjectNode) mapper.readTree(json);
 * byte[] signedBytes = Canonicalizer.signingPayload(receipt);
 * }</pre>
 *
 * <p>Values with no canonical form throw {@link CanonicalizationException} naming the JSON path.
 * The class is stateless and thread-safe; it writes into a per-thread reusable buffer, so a call
 * allocates little beyond the returned array.
 */
public final class Canonicalizer {

  /** The largest integer the canonical form admits: 2<sup>53</sup>−1. */
  static final long MAX_SAFE_INTEGER = (1L << 53) - 1;

  /** Deepest nesting of arrays and objects accepted (matches Jackson's default read limit). */
  static final int MAX_DEPTH = 1000;

  private static final String SIGNATURE = "signature";

  private static final ThreadLocal<Sink> SINK = ThreadLocal.withInitial(Sink::new);

  private Canonicalizer() {}

  /**
   * Returns the canonical UTF-8 bytes of {@code value}.
   *
   * @param value any JSON value
   * @return a new array holding the canonical form
   * @throws CanonicalizationException if some value inside has no canonical form
   * @throws NullPointerException if {@code value} is null
   */
  public static byte[] canonicalize(JsonNode value) {
    Sink sink = write(value, false);
    try {
      return sink.toByteArray();
    } finally {
      sink.trim();
    }
  }

  /**
   * Returns the canonical form of {@code value} as a string (for display and debugging; sign and
   * verify the bytes).
   *
   * @param value any JSON value
   * @return the canonical form
   * @throws CanonicalizationException if some value inside has no canonical form
   * @throws NullPointerException if {@code value} is null
   */
  public static String canonicalString(JsonNode value) {
    Sink sink = write(value, false);
    try {
      return new String(sink.buf, 0, sink.len, StandardCharsets.UTF_8);
    } finally {
      sink.trim();
    }
  }

  /**
   * Returns the bytes a receipt signature covers: the canonical form of {@code receipt} without its
   * top-level {@code signature} member (nested members named {@code signature} are kept). The tree
   * is not copied or modified.
   *
   * @param receipt a receipt object, signed or not
   * @return a new array holding the signed payload
   * @throws CanonicalizationException if some value inside has no canonical form
   * @throws NullPointerException if {@code receipt} is null
   */
  public static byte[] signingPayload(ObjectNode receipt) {
    Sink sink = write(receipt, true);
    try {
      return sink.toByteArray();
    } finally {
      sink.trim();
    }
  }

  /**
   * Writes the signing payload of {@code receipt} into this thread's buffer and returns it. The
   * content stays valid until the next canonicalization on this thread; call {@link Sink#trim()}
   * when done.
   */
  static Sink writeSigningPayload(JsonNode receipt) {
    return write(receipt, true);
  }

  private static Sink write(JsonNode value, boolean omitSignature) {
    Objects.requireNonNull(value, "value");
    Sink sink = SINK.get();
    sink.len = 0;
    try {
      if (omitSignature) {
        if (!value.isObject()) {
          throw new PathFailure("expected an object, found " + typeName(value));
        }
        sink.writeObject(value, 1, true);
      } else {
        sink.writeValue(value, 0);
      }
    } catch (PathFailure f) {
      sink.len = 0;
      sink.trim();
      throw new CanonicalizationException(f.path(), f.getMessage());
    }
    return sink;
  }

  static String typeName(JsonNode node) {
    switch (node.getNodeType()) {
      case OBJECT:
        return "object";
      case ARRAY:
        return "array";
      case STRING:
        return "string";
      case NUMBER:
        return "number";
      case BOOLEAN:
        return "boolean";
      case NULL:
        return "null";
      case BINARY:
        return "binary";
      case POJO:
        return "POJO";
      default:
        return "missing";
    }
  }

  /** A growable byte buffer with the canonical writers; one per thread. */
  static final class Sink {
    private static final int INITIAL = 1024;
    private static final int RETAIN_LIMIT = 64 * 1024;
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    byte[] buf = new byte[INITIAL];
    int len;

    byte[] toByteArray() {
      return Arrays.copyOf(buf, len);
    }

    /** Drops an oversized buffer so one huge value does not pin memory for the thread's life. */
    void trim() {
      if (buf.length > RETAIN_LIMIT) {
        buf = new byte[INITIAL];
        len = 0;
      }
    }

    private void ensure(long extra) {
      long need = len + extra;
      if (need > buf.length) {
        if (need > Integer.MAX_VALUE - 16) {
          throw new PathFailure("canonical form exceeds 2 GiB");
        }
        buf =
            Arrays.copyOf(
                buf, (int) Math.max(need, Math.min(2L * buf.length, Integer.MAX_VALUE - 16)));
      }
    }

    private void writeByte(int b) {
      ensure(1);
      buf[len++] = (byte) b;
    }

    private void writeAscii(String s) {
      int n = s.length();
      ensure(n);
      for (int i = 0; i < n; i++) {
        buf[len++] = (byte) s.charAt(i);
      }
    }

    void writeValue(JsonNode node, int depth) {
      switch (node.getNodeType()) {
        case OBJECT:
          writeObject(node, depth + 1, false);
          break;
        case ARRAY:
          writeArray(node, depth + 1);
          break;
        case STRING:
          writeString(node.textValue());
          break;
        case NUMBER:
          writeNumber(node);
          break;
        case BOOLEAN:
          writeAscii(node.booleanValue() ? "true" : "false");
          break;
        case NULL:
          writeAscii("null");
          break;
        default:
          throw new PathFailure("a " + typeName(node) + " node has no JSON representation");
      }
    }

    void writeObject(JsonNode node, int depth, boolean omitSignature) {
      if (depth > MAX_DEPTH) {
        throw new PathFailure("nesting deeper than " + MAX_DEPTH + " levels");
      }
      int size = node.size();
      String[] keys = new String[size];
      JsonNode[] values = new JsonNode[size];
      int n = 0;
      for (Map.Entry<String, JsonNode> e : node.properties()) {
        String key = e.getKey();
        if (omitSignature && SIGNATURE.equals(key)) {
          continue;
        }
        keys[n] = key;
        values[n] = e.getValue();
        n++;
      }
      if (n <= 24) {
        insertionSort(keys, values, n);
      } else {
        Arrays.sort(keys, 0, n);
        for (int i = 0; i < n; i++) {
          values[i] = node.get(keys[i]);
        }
      }
      writeByte('{');
      String key = null;
      try {
        for (int i = 0; i < n; i++) {
          key = keys[i];
          if (i > 0) {
            writeByte(',');
          }
          writeString(key);
          writeByte(':');
          writeValue(values[i], depth);
        }
      } catch (PathFailure f) {
        throw f.prepend(key);
      }
      writeByte('}');
    }

    private static void insertionSort(String[] keys, JsonNode[] values, int n) {
      for (int i = 1; i < n; i++) {
        String k = keys[i];
        if (k.compareTo(keys[i - 1]) >= 0) {
          continue;
        }
        JsonNode v = values[i];
        int j = i - 1;
        while (j >= 0 && keys[j].compareTo(k) > 0) {
          keys[j + 1] = keys[j];
          values[j + 1] = values[j];
          j--;
        }
        keys[j + 1] = k;
        values[j + 1] = v;
      }
    }

    private void writeArray(JsonNode node, int depth) {
      if (depth > MAX_DEPTH) {
        throw new PathFailure("nesting deeper than " + MAX_DEPTH + " levels");
      }
      int n = node.size();
      writeByte('[');
      int i = 0;
      try {
        for (; i < n; i++) {
          if (i > 0) {
            writeByte(',');
          }
          writeValue(node.get(i), depth);
        }
      } catch (PathFailure f) {
        throw f.prepend(i);
      }
      writeByte(']');
    }

    private void writeNumber(JsonNode node) {
      if (!node.isIntegralNumber()) {
        throw new PathFailure(
            "number " + node.asText() + " is not an integer (no fractions or exponents allowed)");
      }
      long v;
      if (node.isBigInteger()) {
        BigInteger big = node.bigIntegerValue();
        if (big.bitLength() > 53) {
          throw outOfRange(big.toString());
        }
        v = big.longValue();
      } else {
        v = node.longValue();
      }
      if (v > MAX_SAFE_INTEGER || v < -MAX_SAFE_INTEGER) {
        throw outOfRange(Long.toString(v));
      }
      writeLong(v);
    }

    private static PathFailure outOfRange(String digits) {
      return new PathFailure(
          "integer " + digits + " is outside the safe range ±(2^53-1) = ±9007199254740991");
    }

    private void writeLong(long v) {
      ensure(17);
      if (v < 0) {
        buf[len++] = '-';
        v = -v;
      }
      if (v < 10) {
        buf[len++] = (byte) ('0' + v);
        return;
      }
      int digits = 0;
      for (long t = v; t != 0; t /= 10) {
        digits++;
      }
      int p = len + digits;
      len = p;
      while (v != 0) {
        buf[--p] = (byte) ('0' + (v % 10));
        v /= 10;
      }
    }

    void writeString(String s) {
      int n = s.length();
      ensure(6L * n + 2);
      byte[] b = buf;
      int p = len;
      b[p++] = '"';
      for (int i = 0; i < n; i++) {
        char c = s.charAt(i);
        if (c < 0x80) {
          if (c >= 0x20) {
            if (c == '"' || c == '\\') {
              b[p++] = '\\';
            }
            b[p++] = (byte) c;
          } else {
            b[p++] = '\\';
            b[p++] = 'u';
            b[p++] = '0';
            b[p++] = '0';
            b[p++] = HEX[c >> 4];
            b[p++] = HEX[c & 0xF];
          }
        } else if (c < 0x800) {
          b[p++] = (byte) (0xC0 | (c >> 6));
          b[p++] = (byte) (0x80 | (c & 0x3F));
        } else if (c < Character.MIN_SURROGATE || c > Character.MAX_SURROGATE) {
          b[p++] = (byte) (0xE0 | (c >> 12));
          b[p++] = (byte) (0x80 | ((c >> 6) & 0x3F));
          b[p++] = (byte) (0x80 | (c & 0x3F));
        } else {
          char low;
          if (c > Character.MAX_HIGH_SURROGATE
              || i + 1 >= n
              || (low = s.charAt(i + 1)) < Character.MIN_LOW_SURROGATE
              || low > Character.MAX_LOW_SURROGATE) {
            len = p;
            throw new PathFailure(
                "string contains a lone surrogate U+"
                    + Integer.toHexString(c).toUpperCase(java.util.Locale.ROOT)
                    + " at index "
                    + i
                    + " (not valid Unicode)");
          }
          i++;
          int cp = Character.toCodePoint(c, low);
          b[p++] = (byte) (0xF0 | (cp >> 18));
          b[p++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
          b[p++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
          b[p++] = (byte) (0x80 | (cp & 0x3F));
        }
      }
      b[p++] = '"';
      len = p;
    }
  }

  /**
   * Internal failure carrying the path segments collected while the recursion unwinds (so the happy
   * path tracks no path at all). No stack trace: it never leaves this class.
   */
  private static final class PathFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient List<Object> reversedPath = new ArrayList<>(4);

    PathFailure(String reason) {
      super(reason, null, false, false);
    }

    PathFailure prepend(Object segment) {
      if (segment != null) {
        reversedPath.add(segment);
      }
      return this;
    }

    String path() {
      StringBuilder sb = new StringBuilder("$");
      for (int i = reversedPath.size() - 1; i >= 0; i--) {
        Object seg = reversedPath.get(i);
        if (seg instanceof Integer) {
          sb.append('[').append(seg).append(']');
        } else {
          appendKey(sb, (String) seg);
        }
      }
      return sb.toString();
    }

    private static void appendKey(StringBuilder sb, String key) {
      boolean simple = !key.isEmpty();
      for (int i = 0; i < key.length() && simple; i++) {
        char c = key.charAt(i);
        simple =
            (c >= 'a' && c <= 'z')
                || (c >= 'A' && c <= 'Z')
                || c == '_'
                || (i > 0 && c >= '0' && c <= '9');
      }
      if (simple) {
        sb.append('.').append(key);
        return;
      }
      sb.append("[\"");
      for (int i = 0; i < key.length(); i++) {
        char c = key.charAt(i);
        if (c == '"' || c == '\\') {
          sb.append('\\').append(c);
        } else if (c < 0x20 || Character.isSurrogate(c) || c == 0x7F) {
          sb.append("\\u").append(Integer.toHexString(0x10000 | c), 1, 5);
        } else {
          sb.append(c);
        }
      }
      sb.append("\"]");
    }
  }
}
