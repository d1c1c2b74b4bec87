package dev.agentauth.examples.spring;

import dev.agentauth.spring.AgentAuthToolCallbacks;
import java.util.Map;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.support.ToolCallbacks;

/**
 * An agent in the same application: a {@code ChatClient} that calls the {@code @Tool} methods of
 * {@link EmailTools} itself, each call checked by the starter for the user the application names in
 * the tool context. Build it with the {@code ChatClient.Builder} of a configured chat model.
 */
public class NotesAssistant {

  private final ChatClient chatClient;
  private final AgentAuthToolCallbacks toolCallbacks;
  private final EmailTools emailTools;

  public NotesAssistant(
      ChatClient chatClient, AgentAuthToolCallbacks toolCallbacks, EmailTools emailTools) {
    this.chatClient = chatClient;
    this.toolCallbacks = toolCallbacks;
    this.emailTools = emailTools;
  }

  /** Answers {@code question} for {@code userId}, whose authorization every tool call needs. */
  public String answer(String userId, String question) {
    // spotless:off
    // @start region="chat-client"
    return chatClient.prompt(question)
        .tools((Object[]) toolCallbacks.guard(ToolCallbacks.from(emailTools)))
        .toolContext(Map.of("user_id", userId))   // the application's user, not the model's
        .call()
        .content();
    // @end region="chat-client"
    // spotless:on
  }
}
