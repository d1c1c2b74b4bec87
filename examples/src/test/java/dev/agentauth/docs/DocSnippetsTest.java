package dev.agentauth.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every {@code ```java} fence of README.md and docs/*.md is the twin of a region of a compiled
 * source that a test runs, so that no documented Java can stop compiling or working unnoticed.
 * {@code ```ts} fences likewise, twins of TypeScript that {@code OpenApiTypeScriptClientIT}
 * type-checks and runs.
 *
 * <p>In the markdown, the line before the fence names the region: {@code <!-- snippet:
 * examples/src/test/java/dev/agentauth/docs/X.java#name -->}. In the source, the region lies
 * between {@code // @start region="name"} and {@code // @end region="name"} (the markup of JEP
 * 413's {@code @snippet}). The fence holds the region's lines de-indented by their common
 * indentation. {@code // @replace substring="a" replacement="b"} at the end of a line replaces text
 * in that line; alone on a line and ending with {@code :} it applies to the next line.
 *
 * <p>Run with {@code -Ddocs.snippets.write=true} to rewrite the fences from the sources.
 */
class DocSnippetsTest {

  /** The repository root: the examples module's parent. */
  static final Path ROOT = Path.of("").toAbsolutePath().getParent();

  private static final Pattern MARKER =
      Pattern.compile("^<!--\\s*snippet:\\s*(\\S+?)#([A-Za-z0-9_.-]+)\\s*-->\\s*$");
  private static final Pattern START =
      Pattern.compile("^\\s*//\\s*@start\\s+region\\s*=\\s*\"([A-Za-z0-9_.-]+)\"\\s*$");
  private static final Pattern END =
      Pattern.compile("^\\s*//\\s*@end(?:\\s+region\\s*=\\s*\"([A-Za-z0-9_.-]+)\")?\\s*$");
  private static final Pattern REPLACE =
      Pattern.compile(
          "//\\s*@replace\\s+substring\\s*=\\s*(\"[^\"]*\"|'[^']*')"
              + "\\s+replacement\\s*=\\s*(\"[^\"]*\"|'[^']*')\\s*(:?)\\s*$");

  /** A {@code ```java} fence: where it is, its marker (or null) and its body. */
  record Fence(Path doc, int line, String source, String region, List<String> body) {
    String where() {
      return ROOT.relativize(doc) + ":" + line;
    }
  }

  @Test
  void everyJavaFenceIsTheTwinOfACompiledRegion() throws IOException {
    boolean write = Boolean.getBoolean("docs.snippets.write");
    List<String> problems = new ArrayList<>();
    int checked = 0;
    for (Path doc : documents()) {
      List<String> lines = Files.readAllLines(doc, StandardCharsets.UTF_8);
      List<Fence> fences = fences(doc, lines);
      boolean changed = false;
      // Rewrite bottom-up so that earlier line numbers stay valid.
      for (int i = fences.size() - 1; i >= 0; i--) {
        Fence f = fences.get(i);
        if (f.source() == null) {
          problems.add(
              f.where()
                  + ": a ```java or ```ts fence without a `<!-- snippet: path#region -->` marker line"
                  + " before it");
          continue;
        }
        List<String> expected;
        try {
          expected = region(ROOT.resolve(f.source()), f.region());
        } catch (IllegalArgumentException | UncheckedIOException e) {
          problems.add(f.where() + ": " + e.getMessage());
          continue;
        }
        checked++;
        if (!expected.equals(f.body())) {
          if (write) {
            int first = f.line(); // the body starts on the line after the opening fence
            for (int k = 0; k < f.body().size(); k++) {
              lines.remove(first);
            }
            lines.addAll(first, expected);
            changed = true;
          } else {
            problems.add(
                f.where()
                    + ": differs from "
                    + f.source()
                    + "#"
                    + f.region()
                    + " (run the examples tests with -Ddocs.snippets.write=true to rewrite)\n"
                    + "--- doc:\n"
                    + String.join("\n", f.body())
                    + "\n--- source:\n"
                    + String.join("\n", expected));
          }
        }
      }
      if (changed) {
        Files.write(doc, lines, StandardCharsets.UTF_8);
      }
    }
    assertThat(problems).as("doc snippets").isEmpty();
    assertThat(checked).as("snippets checked").isPositive();
  }

  @Test
  void regionsAreDeindentedAndReplacementsApplied() throws IOException {
    Path source = Files.createTempFile("snippet", ".java");
    try {
      Files.writeString(
          source,
          String.join(
              "\n",
              "class X {",
              "  void m() {",
              "    // @start region=\"a\"",
              "    Client c = Client.builder()",
              "        .url(server.url()) // @replace substring=\"server.url()\""
                  + " replacement='\"https://example.com\"'",
              "        // @replace substring=\"key()\" replacement='System.getenv(\"K\")':",
              "        .key(key())",
              "        .build();",
              "    // @end region=\"a\"",
              "  }",
              "}"));
      assertThat(region(source, "a"))
          .containsExactly(
              "Client c = Client.builder()",
              "    .url(\"https://example.com\")",
              "    .key(System.getenv(\"K\"))",
              "    .build();");
      assertThatThrownBy(() -> region(source, "b")).hasMessageContaining("no region \"b\"");
    } finally {
      Files.delete(source);
    }
  }

  @Test
  void aReplacementThatMatchesNothingIsAnError() throws IOException {
    Path source = Files.createTempFile("snippet", ".java");
    try {
      Files.writeString(
          source,
          String.join(
              "\n",
              "// @start region=\"a\"",
              "int x = 1; // @replace substring=\"y\" replacement=\"z\"",
              "// @end region=\"a\""));
      assertThatThrownBy(() -> region(source, "a"))
          .hasMessageContaining("@replace substring \"y\" not found");
    } finally {
      Files.delete(source);
    }
  }

  /** README.md and every docs/*.md. */
  static List<Path> documents() throws IOException {
    List<Path> docs = new ArrayList<>();
    docs.add(ROOT.resolve("README.md"));
    try (Stream<Path> s = Files.list(ROOT.resolve("docs"))) {
      s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
    }
    return docs;
  }

  /** The {@code ```java} and {@code ```ts} fences of a document, with the marker before each. */
  static List<Fence> fences(Path doc, List<String> lines) {
    List<Fence> fences = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String opening = lines.get(i).strip();
      if (!opening.startsWith("```")) {
        continue;
      }
      int close = i + 1;
      while (close < lines.size() && !lines.get(close).strip().equals("```")) {
        close++;
      }
      if (opening.equals("```java") || opening.equals("```ts")) {
        String source = null;
        String region = null;
        if (i > 0) {
          Matcher m = MARKER.matcher(lines.get(i - 1).strip());
          if (m.matches()) {
            source = m.group(1);
            region = m.group(2);
          }
        }
        fences.add(
            new Fence(doc, i + 1, source, region, new ArrayList<>(lines.subList(i + 1, close))));
      }
      i = close;
    }
    return fences;
  }

  /** The region's lines as the documentation shows them. */
  static List<String> region(Path source, String name) {
    List<String> lines;
    try {
      lines = Files.readAllLines(source, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + source + ": " + e, e);
    }
    int start = -1;
    for (int i = 0; i < lines.size(); i++) {
      Matcher m = START.matcher(lines.get(i));
      if (m.matches() && m.group(1).equals(name)) {
        if (start >= 0) {
          throw new IllegalArgumentException(source + ": region \"" + name + "\" appears twice");
        }
        start = i;
      }
    }
    if (start < 0) {
      throw new IllegalArgumentException(source + ": no region \"" + name + "\"");
    }
    List<String> body = new ArrayList<>();
    String[] pending = null;
    boolean ended = false;
    for (int i = start + 1; i < lines.size(); i++) {
      String line = lines.get(i);
      Matcher end = END.matcher(line);
      if (end.matches() && (end.group(1) == null || end.group(1).equals(name))) {
        ended = true;
        break;
      }
      if (START.matcher(line).matches() || (end.matches() && !end.group(1).equals(name))) {
        continue; // a nested region's markup
      }
      Matcher r = REPLACE.matcher(line);
      if (r.find()) {
        String[] replace = {unquote(r.group(1)), unquote(r.group(2))};
        String code = line.substring(0, r.start()).stripTrailing();
        if (!r.group(3).isEmpty()) {
          if (!code.isBlank()) {
            throw new IllegalArgumentException(
                source + ":" + (i + 1) + ": a @replace ending in ':' must be alone on its line");
          }
          pending = replace;
          continue;
        }
        body.add(replace(source, i, code, replace));
        continue;
      }
      if (pending != null) {
        body.add(replace(source, i, line, pending));
        pending = null;
        continue;
      }
      body.add(line);
    }
    if (!ended) {
      throw new IllegalArgumentException(source + ": region \"" + name + "\" has no @end");
    }
    int indent = Integer.MAX_VALUE;
    for (String line : body) {
      if (!line.isBlank()) {
        indent = Math.min(indent, line.length() - line.stripLeading().length());
      }
    }
    List<String> out = new ArrayList<>();
    for (String line : body) {
      out.add(line.isBlank() ? "" : line.substring(indent).stripTrailing());
    }
    return out;
  }

  private static String replace(Path source, int index, String line, String[] replace) {
    if (!line.contains(replace[0])) {
      throw new IllegalArgumentException(
          source + ":" + (index + 1) + ": @replace substring \"" + replace[0] + "\" not found");
    }
    return line.replace(replace[0], replace[1]);
  }

  private static String unquote(String quoted) {
    return quoted.substring(1, quoted.length() - 1);
  }
}
