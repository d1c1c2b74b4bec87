package dev.agentauth.examples;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.ApiKeyCreateParams;
import dev.agentauth.client.AuthorizationCreateParams;
import dev.agentauth.guard.ResourceBinding;
import dev.agentauth.langchain4j.ApprovalRequest;
import dev.agentauth.langchain4j.LangChain4jToolGuard;
import dev.agentauth.langchain4j.UserIdSource;
import dev.agentauth.model.ApiKeyRole;
import dev.agentauth.server.AgentAuthServer;
import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.invocation.InvocationParameters;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.UserMessage;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A LangChain4j AI service whose tools are guarded by agentauth, against an in-process reference
 * server. The chat model is scripted (no network model): each turn it calls the next tool of its
 * script, then reports what the tool answered. The run shows an allowed call, a confirmation the
 * user approves (the retry runs, a call on another note asks again), and a denied tool.
 *
 * <p>Run it with {@code mvn -B -q -pl examples -am package -DskipTests && java -cp
 * examples/target/agentauth-quickstart.jar dev.agentauth.examples.LangChain4jAgent}.
 */
public final class LangChain4jAgent {
  static final String USER = "demo_user";

  /** The AI service: the user id travels in the invocation parameters, not in the prompt. */
  interface Assistant {
    String chat(@UserMessage String message, InvocationParameters parameters);
  }

  /** The agent's tools; each says what it did. */
  static final class NoteTools {
    final List<String> ran = new CopyOnWriteArrayList<>();

    @Tool("Reads a note")
    String read_note(@P("the note id") String id) {
      ran.add("read_note " + id);
      return "note " + id + ": buy milk";
    }

    @Tool("Deletes a note")
    String delete_note(@P("the note id") String id) {
      ran.add("delete_note " + id);
      return "deleted note " + id;
    }

    @Tool("Empties the trash for good")
    String empty_trash() {
      ran.add("empty_trash");
      return "trash emptied";
    }
  }

  public static void main(String[] args) {
    List<String> ran = run(System.out);
    System.exit(ran.equals(List.of("read_note n1", "delete_note n1")) ? 0 : 1);
  }

  /** Runs the conversation, printing a transcript; returns the tools that ran, in order. */
  public static List<String> run(PrintStream out) {
    try (AgentAuthServer server = AgentAuthServer.builder().port(0).build().start()) {
      AgentAuthClient admin =
          AgentAuthClient.builder().baseUrl(server.baseUrl()).apiKey(server.apiKey()).build();
      String authorizationId =
          admin
              .authorizations()
              .create(
                  AuthorizationCreateParams.inline()
                      .userId(USER)
                      .agentId("notes-agent")
                      .scope("read_note")
                      .scope("delete_note")
                      .requiresConfirmFor("delete_note")
                      .expiresAt(Instant.now().plus(Duration.ofDays(30)))
                      .build())
              .authorizationId();
      // The agent checks with an agent key: it can never approve its own calls.
      AgentAuthClient agentClient =
          admin
              .newBuilder()
              .apiKey(admin.apiKeys().create(ApiKeyCreateParams.of(ApiKeyRole.AGENT)).apiKey())
              .build();
      Map<String, String> grants = Map.of(USER, authorizationId);
      List<ApprovalRequest> waiting = new CopyOnWriteArrayList<>();

      // @start region="guard"
      LangChain4jToolGuard guard =
          LangChain4jToolGuard.builder()
              .client(agentClient)
              .userIdSource(UserIdSource.invocationParameter("user_id"))
              .authorizationResolver((user, tool, a) -> Optional.ofNullable(grants.get(user)))
              .resourceBinding("delete_note", ResourceBinding.template("notes:{id}"))
              .approvalListener(waiting::add)
              .build();
      // @end region="guard"
      NoteTools tools = new NoteTools();
      ScriptedModel model = new ScriptedModel(out);
      // @start region="service"
      Assistant assistant =
          AiServices.builder(Assistant.class).chatModel(model).tools(guard.tools(tools)).build();
      InvocationParameters asUser = InvocationParameters.from(Map.of("user_id", USER));
      // @end region="service"

      out.println("agentauth + LangChain4j: a guarded AI service (scripted model)");
      model.willCall("read_note", "{\"id\":\"n1\"}");
      say(out, assistant, asUser, "Read note n1");
      model.willCall("delete_note", "{\"id\":\"n1\"}");
      say(out, assistant, asUser, "Delete note n1");
      for (ApprovalRequest r : waiting) {
        out.println(
            "  [app] "
                + r.userId()
                + " is asked to approve "
                + r.toolName()
                + " "
                + r.call().arguments()
                + " and approves (nonce "
                + r.confirmNonce()
                + ")");
        admin.confirmations().approve(r.confirmNonce());
      }
      model.willCall("delete_note", "{\"id\":\"n1\"}");
      say(out, assistant, asUser, "Try deleting n1 again");
      model.willCall("delete_note", "{\"id\":\"n2\"}");
      say(out, assistant, asUser, "Now delete note n2");
      model.willCall("empty_trash", "{}");
      say(out, assistant, asUser, "Empty the trash");
      out.println("tools that ran: " + tools.ran);
      return new ArrayList<>(tools.ran);
    }
  }

  private static void say(
      PrintStream out, Assistant assistant, InvocationParameters asUser, String message) {
    out.println("user: " + message);
    out.println("assistant: " + assistant.chat(message, asUser));
  }

  /**
   * A chat model with a script: asked after a user message, it calls the next scripted tool; asked
   * after a tool result, it answers with that result.
   */
  static final class ScriptedModel implements ChatModel {
    private final Deque<ToolExecutionRequest> script = new ArrayDeque<>();
    private final PrintStream out;
    private int ids;

    ScriptedModel(PrintStream out) {
      this.out = out;
    }

    synchronized ScriptedModel willCall(String tool, String arguments) {
      script.add(
          ToolExecutionRequest.builder()
              .id("call_" + ++ids)
              .name(tool)
              .arguments(arguments)
              .build());
      return this;
    }

    @Override
    public synchronized ChatResponse doChat(ChatRequest request) {
      List<ChatMessage> messages = request.messages();
      if (messages.get(messages.size() - 1) instanceof ToolExecutionResultMessage r) {
        out.println("  [tool result] " + r.text());
        return ChatResponse.builder()
            .aiMessage(AiMessage.from("The tool said: " + r.text()))
            .build();
      }
      ToolExecutionRequest next = script.poll();
      if (next == null) {
        return ChatResponse.builder().aiMessage(AiMessage.from("Nothing to do.")).build();
      }
      out.println("  [model calls] " + next.name() + " " + next.arguments());
      return ChatResponse.builder().aiMessage(AiMessage.from(List.of(next))).build();
    }
  }
}
