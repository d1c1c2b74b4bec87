package dev.agentauth.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class QuickstartIT {

  @Test
  void quickstartTellsTheWholeStoryAndVerifiesEveryReceiptOffline() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int verified;
    try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
      verified = Quickstart.run(out);
    }
    String transcript = bytes.toString(StandardCharsets.UTF_8);

    assertThat(transcript)
        .contains("-> allow    authorization_granted_scope_active")
        .contains("-> deny     scope_not_authorized")
        .contains("-> deny     rate_limit_exceeded")
        .contains("-> deny     resource_tombstoned")
        .contains("-> confirm  scope_requires_user_confirmation")
        .contains("-> allow    authorization_granted_via_confirmation")
        .contains("-> escalate escalation_required")
        .contains("-> allow    authorization_granted_via_escalation")
        .contains("-> deny     budget_exceeded")
        .contains("-> deny     authorization_revoked")
        .contains("-> deny     authorization_not_found")
        .doesNotContain("INVALID");
    // 16 receipts in the bundle authorization's chain, 4 in the budgeted one, 1 for the unknown id.
    assertThat(verified).isEqualTo(21);
    assertThat(transcript).endsWith("21 receipts verified offline" + System.lineSeparator());
  }

  /**
   * The README's first command runs the packaged jar, not this class path: a dependency missing
   * from the jar (a scope overridden in the POM, say) shows only there.
   */
  @Test
  void thePackagedQuickstartJarRunsToTheEnd() throws Exception {
    Path jar = Path.of(System.getProperty("agentauth.examples.quickstartJar"));
    assertThat(jar).exists();
    List<String> command = new ArrayList<>();
    command.add(ExampleTestSupport.java());
    command.addAll(ExampleTestSupport.quickJvmFlags());
    command.add("-jar");
    command.add(jar.toString());
    Path log = Files.createTempFile("quickstart", ".log");
    try {
      Process p =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("quickstart jar finished").isTrue();
      String output = Files.readString(log, StandardCharsets.UTF_8);
      assertThat(p.exitValue()).as(output).isZero();
      assertThat(output).contains("21 receipts verified offline").doesNotContain("Exception");
    } finally {
      Files.deleteIfExists(log);
    }
  }
}
