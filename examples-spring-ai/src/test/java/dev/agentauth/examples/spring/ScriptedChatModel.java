package dev.agentauth.examples.spring;

import java.util.List;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.model.tool.ToolExecutionResult;

// @start region="scripted-chat-model"
/**
 * A chat model for tests: asked anything, it calls one tool with fixed arguments, the way a real
 * model's integration does (ToolCallingManager), and answers with the tool's result. The ChatClient
 * puts its tools and tool context in the prompt's options only when {@link #getOptions()} returns
 * ToolCallingChatOptions.
 */
class ScriptedChatModel implements ChatModel {
  private final String tool;
  private final String arguments;
  private final ToolCallingManager toolCalling = ToolCallingManager.builder().build();

  ScriptedChatModel(String tool, String arguments) {
    this.tool = tool;
    this.arguments = arguments;
  }

  @Override
  public ChatOptions getOptions() {
    return ToolCallingChatOptions.builder().build(); // not ChatOptions: the tools would be dropped
  }

  @Override
  public ChatResponse call(Prompt prompt) {
    if (!(prompt.getOptions() instanceof ToolCallingChatOptions options)
        || options.getToolCallbacks() == null
        || options.getToolCallbacks().stream()
            .noneMatch(c -> c.getToolDefinition().name().equals(tool))) {
      return answer("no tool " + tool + " was offered");
    }
    AssistantMessage call =
        AssistantMessage.builder()
            .toolCalls(
                List.of(new AssistantMessage.ToolCall("call_1", "function", tool, arguments)))
            .build();
    ToolExecutionResult result =
        toolCalling.executeToolCalls(prompt, new ChatResponse(List.of(new Generation(call))));
    List<Message> history = result.conversationHistory();
    ToolResponseMessage response = (ToolResponseMessage) history.get(history.size() - 1);
    return answer(response.getResponses().get(0).responseData());
  }

  private static ChatResponse answer(String text) {
    return new ChatResponse(List.of(new Generation(new AssistantMessage(text))));
  }
}
// @end region="scripted-chat-model"
