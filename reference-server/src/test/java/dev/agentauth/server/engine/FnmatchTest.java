package dev.agentauth.server.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@code resource_pattern} matching: Python's {@code fnmatch.fnmatchcase}, in linear time. */
class FnmatchTest {

  /** Pattern, name, and what CPython 3.11's {@code fnmatch.fnmatchcase(name, pattern)} returns. */
  static Stream<Arguments> pythonTable() {
    return Stream.of(
        // The cases CheckDecisionsIT once ran over HTTP.
        row("file?.txt", "file1.txt", true),
        row("file?.txt", "file/.txt", true),
        row("file?.txt", "file.txt", false),
        row("file?.txt", "file12.txt", false),
        row("[abc]-[0-9]", "a-5", true),
        row("[abc]-[0-9]", "c-0", true),
        row("[abc]-[0-9]", "d-5", false),
        row("[abc]-[0-9]", "a-x", false),
        row("[!abc]x", "dx", true),
        row("[!abc]x", "/x", true),
        row("[!abc]x", "ax", false),
        row("[!abc]x", "x", false),
        row("a.b(c)+", "a.b(c)+", true),
        row("a.b(c)+", "axb(c)+", false),
        row("a.b(c)+", "a.bcc", false),
        row("a[b", "a[b", true),
        row("a[b", "ab", false),
        row("Docs/*.PDF", "Docs/x.PDF", true),
        row("Docs/*.PDF", "docs/x.PDF", false),
        row("Docs/*.PDF", "Docs/x.pdf", false),
        row("Docs/*.PDF", "Docs/x.PDF.bak", false),
        row("Docs/*.PDF", "/Docs/x.PDF", false),
        row("mailbox/alice", "mailbox/alice", true),
        row("mailbox/alice", "mailbox/bob", false),
        row("mailbox/*", "mailbox/bob", true),
        row("mailbox/*", "mailbox/", true),
        row("mailbox/*", "mailbox", false),
        row("*", "", true),
        row("*", "a/b/c", true),
        row("a*", "A", false),
        row("?", "a", true),
        row("?", "", false),
        row("?", "ab", false),
        row("??", "ab", true),
        row("a?c", "abc", true),
        row("a?c", "a/c", true),
        row("a*c", "a/b/c", true),
        row("[abc]", "b", true),
        row("[abc]", "d", false),
        row("[!abc]", "d", true),
        row("[!abc]", "a", false),
        row("[a-c]", "b", true),
        row("[a-c]", "-", false),
        row("[c-a]", "b", false),
        row("[c-a]", "c", false),
        row("[]]", "]", true),
        row("[]a]", "a", true),
        row("[!]]", "]", false),
        row("[!]]", "x", true),
        row("[!]", "!", false),
        row("[!]", "x", false),
        row("[", "[", true),
        row("[a", "[a", true),
        row("[a", "a", false),
        row("a[", "a[", true),
        row("[-a]", "-", true),
        row("[a-]", "-", true),
        row("[a-c-e]", "-", true),
        row("[a-c-e]", "d", false),
        row("[a-c-e]", "e", true),
        row("[c-a-z]", "-", true),
        row("[c-a-z]", "z", true),
        row("[c-a-z]", "b", false),
        row("[!a-z]", "Z", true),
        row("[!a-z]", "q", false),
        row("*.txt", "notes.txt", true),
        row("*.txt", "notes.txt.bak", false),
        row("*a*b", "xaxb", true),
        row("*a*b", "xaxbx", false),
        row("a*b*c", "abc", true),
        row("a*b*c", "acb", false),
        row("*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaa", false),
        row("\\*", "\\x", true),
        row("\\*", "*", false),
        row("a\\b", "a\\b", true),
        row("crm/acct_[0-9][0-9]", "crm/acct_42", true),
        row("crm/acct_[0-9][0-9]", "crm/acct_4x", false),
        row("é*", "école", true),
        row("[é-ë]", "ê", true),
        row("😀?", "😀x", true),
        row("?", "😀", true),
        row("a.b", "axb", false),
        row("a+b", "a+b", true),
        row("(a)", "(a)", true),
        row("a|b", "a", false),
        row("^a$", "^a$", true),
        row("**", "x", true),
        row("a**b", "ab", true),
        row("*?", "", false),
        row("*?", "x", true),
        row("?*?", "ab", true),
        row("?*?", "a", false),
        row("MAILBOX/*", "mailbox/x", false),
        row("[[]", "[", true),
        row("[\\]", "\\", true),
        row("[a&&b]", "&", true),
        row("[a~~b]", "~", true),
        row("[^a]", "^", true),
        row("[^a]", "b", false));
  }

  private static Arguments row(String pattern, String name, boolean expected) {
    return Arguments.of(pattern, name, expected);
  }

  @ParameterizedTest(name = "fnmatchcase({1}, {0}) = {2}")
  @MethodSource("pythonTable")
  void matchesAsPythonsFnmatchcase(String pattern, String name, boolean expected) {
    assertThat(Fnmatch.matches(pattern, name)).isEqualTo(expected);
  }

  @Test
  void aNullResourceNeverMatches() {
    assertThat(Fnmatch.matches("*", null)).isFalse();
    assertThat(Fnmatch.matchesAny(java.util.List.of("*"), null)).isFalse();
  }

  @Test
  void matchesAnyIsTrueExactlyWhenOnePatternMatches() {
    java.util.List<String> patterns = java.util.List.of("db/prod*", "mail/[!0-9]?", "x");
    assertThat(Fnmatch.matchesAny(patterns, "db/prod/")).isTrue();
    assertThat(Fnmatch.matchesAny(patterns, "mail/ab")).isTrue();
    assertThat(Fnmatch.matchesAny(patterns, "x")).isTrue();
    assertThat(Fnmatch.matchesAny(patterns, "db/PROD")).isFalse();
    assertThat(Fnmatch.matchesAny(patterns, "mail/1b")).isFalse();
    assertThat(Fnmatch.matchesAny(java.util.List.of(), "x")).isFalse();
  }

  /**
   * {@code *a} forty times then {@code b} against a resource of 256 {@code a}s: a backtracking
   * matcher tries on the order of C(256, 40) ways and never answers; this one does a few thousand
   * steps.
   */
  @Test
  void pathologicalPatternsAnswerInLinearTime() {
    String pattern = "*a".repeat(40) + "b";
    String[] resources = {"a".repeat(256), "a".repeat(60), "a".repeat(255) + "b"};
    boolean[] expected = {false, false, true};
    assertTimeoutPreemptively(
        Duration.ofSeconds(5),
        () -> {
          for (int i = 0; i < resources.length; i++) {
            assertThat(Fnmatch.matches(pattern, resources[i])).isEqualTo(expected[i]);
          }
          String stars = "*?".repeat(128);
          assertThat(Fnmatch.matches(stars, "x".repeat(256))).isTrue();
          assertThat(Fnmatch.matches(stars, "x".repeat(127))).isFalse();
        });
  }

  /**
   * Random patterns and names over a small alphabet rich in special characters agree with a
   * regular-expression translation of Python's rules (fine as an oracle for short inputs).
   */
  @Test
  void agreesWithARegularExpressionTranslationOnRandomInputs() {
    Random random = new Random(14);
    String patternChars = "ab*?[]!-";
    String nameChars = "ab-!][";
    for (int n = 0; n < 20_000; n++) {
      String pattern = randomString(random, patternChars, 1 + random.nextInt(8));
      String name = randomString(random, nameChars, random.nextInt(8));
      boolean oracle = Pattern.compile(translate(pattern), Pattern.DOTALL).matcher(name).matches();
      assertThat(Fnmatch.matches(pattern, name))
          .as("fnmatchcase(%s, %s)", name, pattern)
          .isEqualTo(oracle);
    }
  }

  private static String randomString(Random random, String alphabet, int length) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < length; i++) {
      sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
    }
    return sb.toString();
  }

  /** Python's {@code fnmatch.translate}, restated as a Java regular expression. */
  private static String translate(String pat) {
    int[] cps = pat.codePoints().toArray();
    int n = cps.length;
    StringBuilder re = new StringBuilder();
    int i = 0;
    while (i < n) {
      int c = cps[i++];
      if (c == '*') {
        if (!re.toString().endsWith(".*")) {
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
        re.append(Pattern.quote(new String(Character.toChars(c))));
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
        if (lo <= cps[k + 2]) {
          ranges.add(new int[] {lo, cps[k + 2]});
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
    StringBuilder sb = new StringBuilder(negate ? "[^" : "[");
    for (int[] r : ranges) {
      sb.append("\\x{").append(Integer.toHexString(r[0])).append('}');
      if (r[1] != r[0]) {
        sb.append("-\\x{").append(Integer.toHexString(r[1])).append('}');
      }
    }
    return sb.append(']').toString();
  }
}
