package dev.agentauth.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.support.ToolCallbacks;

/**
 * Why the scripted model returns ToolCallingChatOptions: with plain ChatOptions the ChatClient
 * passes it no tools, and a test of tool calls would see none.
 */
class ScriptedChatModelTest {
  private static final String ARGS = "{\"to\":\"team@example.com\",\"body\":\"hi\"}";

  private static String ask(ScriptedChatModel model) {
    return ChatClient.create(model)
        .prompt("Email the team")
        .tools((Object[]) ToolCallbacks.from(new EmailTools()))
        .call()
        .content();
  }

  @Test
  void withToolCallingOptionsTheToolRuns() {
    assertThat(ask(new ScriptedChatModel("send_email", ARGS)))
        .isEqualTo("\"sent to team@example.com\""); // the tool's result, as JSON
  }

  @Test
  void withPlainChatOptionsNoToolReachesTheModel() {
    ScriptedChatModel plain =
        new ScriptedChatModel("send_email", ARGS) {
          @Override
          public ChatOptions getOptions() {
            return ChatOptions.builder().build();
          }
        };
    assertThat(ask(plain)).isEqualTo("no tool send_email was offered");
  }
}
