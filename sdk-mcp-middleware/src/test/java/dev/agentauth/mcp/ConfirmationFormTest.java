package dev.agentauth.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.model.CheckResult;
import dev.agentauth.model.Decision;
import dev.agentauth.model.Reason;
import io.modelcontextprotocol.spec.McpSchema.ElicitFormRequest;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** decisions §19: what the user is asked: the tool, the prompt hint, the arguments bound. */
class ConfirmationFormTest {
  private static final Tool DELETE =
      Tool.builder().name("delete_note").inputSchema(Map.of("type", "object")).build();

  private static CheckResult confirm(String hint) {
    return new CheckResult(
        Decision.CONFIRM,
        Reason.SCOPE_REQUIRES_USER_CONFIRMATION,
        null,
        null,
        "nonce_1",
        null,
        hint,
        null,
        null,
        null,
        null,
        null,
        null);
  }

  private static ToolCall call(Map<String, Object> args) {
    return new ToolCall("delete_note", args, null, null);
  }

  @Test
  void aTemplateShowsOnlyTheArgumentsItBinds() {
    ElicitFormRequest form =
        Confirmations.form(
            DELETE,
            ResourceBinding.template("notes:{id}"),
            call(Map.of("id", "n1", "reason", "old")),
            confirm("Delete a note"));

    assertThat(form.message())
        .isEqualTo(
            "Allow the assistant to run delete_note?\n"
                + "Delete a note\n"
                + "Arguments:\n"
                + "  id: n1\n"
                + "Approving allows this call only.");
    assertThat(form.requestedSchema())
        .isEqualTo(
            Map.of(
                "type",
                "object",
                "properties",
                Map.of(
                    "approve",
                    Map.of(
                        "type",
                        "boolean",
                        "title",
                        "Approve",
                        "description",
                        "Allow this call of delete_note")),
                "required",
                List.of("approve")));
  }

  @Test
  void aDigestShowsEveryArgumentAndLongValuesAreCut() {
    ElicitFormRequest form =
        Confirmations.form(
            DELETE,
            ResourceBinding.argumentsDigest(),
            call(Map.of("id", "n1", "tags", List.of("a", "b"), "body", "x".repeat(300))),
            confirm(null));

    assertThat(form.message())
        .startsWith("Allow the assistant to run delete_note?\nArguments:\n")
        .contains("  body: " + "x".repeat(200) + "…\n")
        .contains("  id: n1\n")
        .contains("  tags: [\"a\",\"b\"]\n");
  }

  @Test
  void anUnboundToolSaysTheApprovalCoversEveryCall() {
    ElicitFormRequest form =
        Confirmations.form(DELETE, ResourceBinding.unbound(), call(Map.of()), confirm(null));

    assertThat(form.message())
        .isEqualTo(
            "Allow the assistant to run delete_note?\n"
                + "Approving allows every call of delete_note for a short while, whatever its"
                + " arguments.");
  }
}
