package dev.agentauth.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The build's OpenAPI coverage, enforced: every documented operation × status pair was answered at
 * least once by the test JVMs of this build, and no answer departed from the document. Failsafe
 * runs it last, in its own execution ({@code openapi-coverage} in the pom), after surefire and the
 * HTTP suites on every store have written their counts. A run narrowed with {@code -Dtest} or
 * {@code -Dit.test} exercises a part of the document only, so it skips there, saying so.
 */
class OpenApiCoverageCheck {

  @Test
  void everyDocumentedPairWasExercisedAndNoAnswerBrokeTheDocument() {
    String filters = System.getProperty("openapi.coverage.filters", "");
    assumeTrue(
        filters.equals("${test}|${it.test}"),
        "this build ran a chosen subset of the tests (-Dtest/-Dit.test: "
            + filters
            + "); the coverage check needs the whole suite");
    OpenApiContract contract = OpenApiContract.get();
    OpenApiCoverageReport report =
        OpenApiCoverageReport.read(
            OpenApiCoverageReport.runsDir(Path.of("target")), contract.documentedPairs());
    assertThat(report.stores()).as("stores whose suites wrote counts").contains("memory", "sqlite");
    assertThat(report.violations()).as("answers the document does not describe").isEmpty();
    assertThat(report.missing())
        .as("documented pairs no test provoked (see target/openapi-coverage.md)")
        .isEmpty();
  }
}
