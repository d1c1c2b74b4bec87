package dev.agentauth.server.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * {@code resource_pattern} matching with the semantics of Python's {@code fnmatch.fnmatchcase}:
 * {@code *} matches any run of characters including {@code /}, {@code ?} one character, {@code
 * [seq]} and {@code [!seq]} character sets with ranges, case-sensitive, against the whole string. A
 * {@code [} without a closing {@code ]} is literal.
 */
public final class Fnmatch {
  private static final int CACHE_LIMIT = 10_000;
  private static final Map<String, Pattern> CACHE = new ConcurrentHashMap<>();

  private Fnmatch() {}

  /** Whether {@code name} matches {@code pattern}; a null name never matches. */
  public static boolean matches(String pattern, String name) {
    if (name == null) {
      return false;
    }
    Pattern compiled = CACHE.get(pattern);
    if (compiled == null) {
      compiled = Pattern.compile(translate(pattern), Pattern.DOTALL);
      if (CACHE.size() < CACHE_LIMIT) {
        CACHE.put(pattern, compiled);
      }
    }
    return compiled.matcher(name).matches();
  }

  /** Translates a pattern into an equivalent Java regular expression. */
  static String translate(String pat) {
    int[] cps = pat.codePoints().toArray();
    int n = cps.length;
    StringBuilder re = new StringBuilder();
    int i = 0;
    while (i < n) {
      int c = cps[i++];
      if (c == '*') {
        if (re.length() < 2 || !re.substring(re.length() - 2).equals(".*")) {
          re.append(".*");
        }
      } else if (c == '?') {
        re.append('.');
      } else if (c == '[') {
        int j = i;
        if (j < n && cps[j] == '!') {
          j++;
        }
        if (j < n && cps[j] == ']') {
          j++;
        }
        while (j < n && cps[j] != ']') {
          j++;
        }
        if (j >= n) {
          re.append("\\[");
        } else {
          re.append(charClass(cps, i, j));
          i = j + 1;
        }
      } else {
        appendLiteral(re, c);
      }
    }
    return re.toString();
  }

  private static String charClass(int[] cps, int start, int end) {
    boolean negate = start < end && cps[start] == '!';
    int k = negate ? start + 1 : start;
    List<int[]> ranges = new ArrayList<>();
    while (k < end) {
      int lo = cps[k];
      if (k + 2 < end && cps[k + 1] == '-') {
        int hi = cps[k + 2];
        if (lo <= hi) {
          ranges.add(new int[] {lo, hi});
        }
        k += 3;
      } else {
        ranges.add(new int[] {lo, lo});
        k++;
      }
    }
    if (ranges.isEmpty()) {
      return negate ? "." : "(?!)";
    }
    StringBuilder sb = new StringBuilder("[");
    if (negate) {
      sb.append('^');
    }
    for (int[] r : ranges) {
      sb.append("\\x{").append(Integer.toHexString(r[0])).append('}');
      if (r[1] != r[0]) {
        sb.append("-\\x{").append(Integer.toHexString(r[1])).append('}');
      }
    }
    return sb.append(']').toString();
  }

  private static void appendLiteral(StringBuilder re, int c) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
      re.append((char) c);
    } else {
      re.append("\\x{").append(Integer.toHexString(c)).append('}');
    }
  }
}
