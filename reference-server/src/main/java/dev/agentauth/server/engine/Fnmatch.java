package dev.agentauth.server.engine;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code resource_pattern} matching with the semantics of Python's {@code fnmatch.fnmatchcase}:
 * {@code *} matches any run of characters including {@code /}, {@code ?} one character, {@code
 * [seq]} and {@code [!seq]} character sets with ranges, case-sensitive, against the whole string. A
 * {@code [} without a closing {@code ]} is literal. Characters are Unicode code points.
 *
 * <p>The resource is chosen by the agent, so matching must never backtrack exponentially (a regular
 * expression built from {@code *a*a*a…b} does). Every element of a pattern but {@code *} matches
 * exactly one character, so the classic two-pointer algorithm applies: match forward, and on a
 * mismatch return to the last {@code *} and let it swallow one more character. Only the last star
 * ever needs revisiting, so the work is at most pattern length × name length steps, whatever the
 * pattern (decisions.md §4).
 */
public final class Fnmatch {
  private Fnmatch() {}

  /** Whether {@code name} matches {@code pattern}; a null name never matches. */
  public static boolean matches(String pattern, String name) {
    if (name == null) {
      return false;
    }
    return match(compile(pattern), name.codePoints().toArray());
  }

  /**
   * Whether {@code name} matches any of {@code patterns}; a null name matches none. The name is
   * decoded once, so the work is at most the sum of pattern length × name length.
   */
  public static boolean matchesAny(List<String> patterns, String name) {
    if (name == null || patterns.isEmpty()) {
      return false;
    }
    int[] cps = name.codePoints().toArray();
    for (String pattern : patterns) {
      if (match(compile(pattern), cps)) {
        return true;
      }
    }
    return false;
  }

  /** One element of a pattern: a star, or a test of exactly one character. */
  private sealed interface Element permits Star, One {}

  /** {@code *}: any run of characters, the empty run included. */
  private record Star() implements Element {}

  /** A single character: a literal, {@code ?} or a set. */
  private record One(int[] ranges, boolean negate) implements Element {
    /** Any character (`?`, or the negated empty set `[!]`). */
    static One any() {
      return new One(new int[0], true);
    }

    static One literal(int c) {
      return new One(new int[] {c, c}, false);
    }

    boolean test(int c) {
      boolean in = false;
      for (int k = 0; k < ranges.length && !in; k += 2) {
        in = c >= ranges[k] && c <= ranges[k + 1];
      }
      return in != negate;
    }
  }

  private static final Star STAR = new Star();

  /** Splits a pattern into its elements, consecutive stars folded into one. */
  static List<Element> compile(String pattern) {
    int[] cps = pattern.codePoints().toArray();
    int n = cps.length;
    List<Element> out = new ArrayList<>(n);
    int i = 0;
    while (i < n) {
      int c = cps[i++];
      if (c == '*') {
        if (out.isEmpty() || !(out.get(out.size() - 1) instanceof Star)) {
          out.add(STAR);
        }
      } else if (c == '?') {
        out.add(One.any());
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
          out.add(One.literal('['));
        } else {
          out.add(set(cps, i, j));
          i = j + 1;
        }
      } else {
        out.add(One.literal(c));
      }
    }
    return out;
  }

  /**
   * The set between {@code [} and {@code ]} ({@code cps[start..end)}): a leading {@code !} negates;
   * {@code a-z} is a range; a range whose ends are reversed matches nothing (Python drops it); a
   * {@code -} that cannot start a range is literal. An empty set matches nothing, {@code [!]} any
   * character.
   */
  private static One set(int[] cps, int start, int end) {
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
    int[] flat = new int[ranges.size() * 2];
    for (int r = 0; r < ranges.size(); r++) {
      flat[2 * r] = ranges.get(r)[0];
      flat[2 * r + 1] = ranges.get(r)[1];
    }
    return new One(flat, negate);
  }

  /**
   * Matches the whole of {@code name}. {@code p} and {@code s} advance together; at a star the
   * positions after it are remembered, and a later mismatch resumes there with the star taking one
   * more character. A star before it never needs to take more: whatever the later star's extra
   * character could be, the later star can take it instead.
   */
  private static boolean match(List<Element> pattern, int[] name) {
    int p = 0;
    int s = 0;
    int starP = -1;
    int starS = -1;
    int m = pattern.size();
    while (s < name.length) {
      if (p < m && pattern.get(p) instanceof One one && one.test(name[s])) {
        p++;
        s++;
      } else if (p < m && pattern.get(p) instanceof Star) {
        starP = ++p;
        starS = s;
      } else if (starP >= 0) {
        p = starP;
        s = ++starS;
      } else {
        return false;
      }
    }
    while (p < m && pattern.get(p) instanceof Star) {
      p++;
    }
    return p == m;
  }
}
