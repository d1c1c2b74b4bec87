package dev.agentauth.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
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
}
