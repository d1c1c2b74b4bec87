package dev.agentauth.langchain4j;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A chat model that needs no network: each time the AI service asks, it answers with the next
 * scripted tool call, or, after a tool result, with a text echoing that result. It records every
 * tool result it was shown.
 */
final class ScriptedChatModel implements ChatModel {
  private final Deque<ToolExecutionRequest> calls = new ArrayDeque<>();
  private final List<ToolExecutionResultMessage> results = new CopyOnWriteArrayList<>();
  private final AtomicInteger ids = new AtomicInteger();

  /** Scripts the next turn: the model calls {@code tool} with {@code argumentsJson}. */
  synchronized ScriptedChatModel willCall(String tool, String argumentsJson) {
    calls.add(
        ToolExecutionRequest.builder()
            .id("call_" + ids.incrementAndGet())
            .name(tool)
            .arguments(argumentsJson)
            .build());
    return this;
  }

  /** Returns every tool result the model was shown, in order. */
  List<ToolExecutionResultMessage> results() {
    return results;
  }

  /** Returns the text of the last tool result the model was shown. */
  String lastResult() {
    return results.get(results.size() - 1).text();
  }

  @Override
  public synchronized ChatResponse doChat(ChatRequest request) {
    List<ChatMessage> messages = request.messages();
    ChatMessage last = messages.get(messages.size() - 1);
    if (last instanceof ToolExecutionResultMessage r) {
      results.add(r);
      return ChatResponse.builder().aiMessage(AiMessage.from("tool said: " + r.text())).build();
    }
    ToolExecutionRequest next = calls.poll();
    if (next == null) {
      return ChatResponse.builder().aiMessage(AiMessage.from("nothing to do")).build();
    }
    return ChatResponse.builder().aiMessage(AiMessage.from(List.of(next))).build();
  }
}
