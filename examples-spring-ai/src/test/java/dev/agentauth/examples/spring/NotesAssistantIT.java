package dev.agentauth.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.spring.AgentAuthToolCallbacks;
import dev.agentauth.spring.test.EmbeddedAgentAuth;
import dev.agentauth.spring.test.EmbeddedAgentAuthServer;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * The in-process agent ({@link NotesAssistant}): a ChatClient on a scripted chat model ({@link
 * ScriptedChatModel}) that asks for {@code send_email}, each call guarded by the starter for the
 * user in the tool context, against the embedded server of the test support ({@code
 * agentauth-spring-boot-test}). The Testing section of docs/spring-ai.md shows this class.
 */
// spotless:off
// @start region="spring-boot-test"
@SpringBootTest
@EmbeddedAgentAuthServer // agentauth.base-url and agentauth.api-key: a fresh embedded server
class NotesAssistantIT {
  @Autowired EmbeddedAgentAuth agentAuth; // the test's side: grants, approvals, receipts
  @Autowired AgentAuthToolCallbacks toolCallbacks;
  @Autowired EmailTools emailTools;

  NotesAssistant assistantAskingFor(String tool, String arguments) {
    ChatClient chat = ChatClient.create(new ScriptedChatModel(tool, arguments));
    return new NotesAssistant(chat, toolCallbacks, emailTools);
  }

  @Test
  void aUserWithTheScopeGetsTheToolsResult() {
    agentAuth.adminClient().authorizations()
        .create(agentAuth.grant("dave").scope("email.send").build());

    String answer = assistantAskingFor("send_email", "{\"to\":\"team@example.com\",\"body\":\"hi\"}")
        .answer("dave", "Email the team");

    assertThat(answer).isEqualTo("\"sent to team@example.com\""); // the tool's result, as JSON
  }

  @Test
  void aUserWithoutTheScopeGetsTheDenialNotTheEmail() {
    agentAuth.adminClient().authorizations()
        .create(agentAuth.grant("bob").scope("notes.read").build());

    String answer = assistantAskingFor("send_email", "{\"to\":\"team@example.com\",\"body\":\"hi\"}")
        .answer("bob", "Email the team");

    assertThat(answer).contains("\"decision\":\"deny\"").contains("scope_not_authorized");
  }
}
// @end region="spring-boot-test"
// spotless:on
