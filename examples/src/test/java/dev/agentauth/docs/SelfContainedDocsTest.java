package dev.agentauth.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
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
 * The user-facing documentation (README.md, every markdown file under docs/, and each module's
 * README.md) is self-contained: it never sends a reader to a document that is not in the
 * repository. The project's design notes live outside it, so a doc that cites them ("see
 * decisions.md §15", "the service specification", "../shared/...") leaves the reader with nothing
 * to open; such a doc must say what the decision is, in place.
 */
class SelfContainedDocsTest {

  /** What betrays a reference to a document outside the repository, and why it is one. */
  record Rule(Pattern pattern, String why) {}

  static final List<Rule> RULES =
      List.of(
          new Rule(
              Pattern.compile("decisions\\.md|decisions\\s+§", Pattern.CASE_INSENSITIVE),
              "the decisions file is not in the repository"),
          new Rule(
              Pattern.compile("\\bservice\\.md", Pattern.CASE_INSENSITIVE),
              "the service specification is not in the repository"),
          new Rule(
              Pattern.compile("\\bservice\\s+spec(ification)?\\b", Pattern.CASE_INSENSITIVE),
              "the service specification is not in the repository"),
          new Rule(Pattern.compile("\\.\\./shared\\b"), "../shared is outside the repository"),
          new Rule(
              Pattern.compile("§\\s*\\d"),
              "a numbered section of a document the reader cannot open"));

  @Test
  void noDocumentSendsTheReaderOutsideTheRepository() throws IOException {
    List<Path> docs = documents();
    // The set is not empty by accident (a wrong root would make this test pass on nothing).
    assertThat(docs)
        .contains(
            DocSnippetsTest.ROOT.resolve("README.md"),
            DocSnippetsTest.ROOT.resolve("docs/server.md"),
            DocSnippetsTest.ROOT.resolve("examples/README.md"));
    List<String> problems = new ArrayList<>();
    for (Path doc : docs) {
      List<String> lines = Files.readAllLines(doc, StandardCharsets.UTF_8);
      for (int i = 0; i < lines.size(); i++) {
        for (String why : violations(lines.get(i))) {
          problems.add(
              DocSnippetsTest.ROOT.relativize(doc)
                  + ":"
                  + (i + 1)
                  + ": "
                  + why
                  + "; say what it decides, in place: "
                  + lines.get(i).strip());
        }
      }
    }
    assertThat(problems).isEmpty();
  }

  @Test
  void theRulesCatchEachKindOfOutsideReference() {
    assertThat(violations("Every key has one role (decisions.md §15).")).hasSize(2);
    assertThat(violations("a code from decisions §16")).hasSize(2);
    assertThat(violations("The reason names the last failure (Decisions §13):")).hasSize(2);
    assertThat(violations("as `service.md` says")).hasSize(1);
    assertThat(violations("The service specification's endpoints")).hasSize(1);
    assertThat(violations("(the service spec's behaviour)")).hasSize(1);
    assertThat(violations("see [the spec](../shared/spec/decisions.md)")).hasSize(2);
    assertThat(violations("see § 9")).hasSize(1);
  }

  @Test
  void theRulesLeaveOrdinaryProseAlone() {
    assertThat(violations("Every decision agentauth makes leaves a receipt.")).isEmpty();
    assertThat(violations("decisions are made in `engine`; see section 2's table")).isEmpty();
    assertThat(violations("the MCP specification since 2025-06-18")).isEmpty();
    assertThat(violations("`agentauth_decisions_total{decision}` counts receipts")).isEmpty();
    assertThat(violations("a `SyncToolSpecification` of the service")).isEmpty();
    assertThat(violations("[Choices where the spec is silent](#choices)")).isEmpty();
  }

  /** Why a line sends the reader outside the repository, one entry per rule it breaks. */
  static List<String> violations(String line) {
    List<String> found = new ArrayList<>();
    for (Rule rule : RULES) {
      Matcher m = rule.pattern().matcher(line);
      if (m.find()) {
        found.add("`" + m.group() + "`: " + rule.why());
      }
    }
    return found;
  }

  /** README.md, every markdown file under docs/, and the README.md of each module folder. */
  static List<Path> documents() throws IOException {
    Path root = DocSnippetsTest.ROOT;
    List<Path> docs = new ArrayList<>();
    docs.add(root.resolve("README.md"));
    try (Stream<Path> s = Files.walk(root.resolve("docs"))) {
      s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
    }
    try (Stream<Path> s = Files.list(root)) {
      s.filter(Files::isDirectory)
          .map(d -> d.resolve("README.md"))
          .filter(Files::isRegularFile)
          .sorted()
          .forEach(docs::add);
    }
    return docs;
  }
}
