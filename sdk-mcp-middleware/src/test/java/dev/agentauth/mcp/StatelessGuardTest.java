package dev.agentauth.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.List;
import java.util.Map;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * Stateless tool specifications (the handler receives the transport context directly, there is no
 * session) are guarded like the others.
 */
class StatelessGuardTest extends GuardTestSupport {

  private static final McpTransportContext ALICE =
      McpTransportContext.create(Map.of("user_id", "alice"));

  private AgentAuthToolGuard contextGuard() {
    return guard().userIdSource(UserIdSource.transportContext("user_id")).build();
  }

  private McpStatelessServerFeatures.SyncToolSpecification statelessSync(String name) {
    return new McpStatelessServerFeatures.SyncToolSpecification(
        tool(name),
        (context, request) -> {
          toolThreads.add(Thread.currentThread().getName());
          return CallToolResult.builder()
              .addTextContent("ran " + name + " for " + context.get("user_id"))
              .build();
        });
  }

  private McpStatelessServerFeatures.AsyncToolSpecification statelessAsync(String name) {
    return new McpStatelessServerFeatures.AsyncToolSpecification(
        tool(name),
        (context, request) ->
            Mono.fromSupplier(
                () -> {
                  toolThreads.add(Thread.currentThread().getName());
                  return CallToolResult.builder().addTextContent("ran " + name).build();
                }));
  }

  @Test
  void anAllowedStatelessSyncCallRunsWithTheUserOfItsTransportContextAndNoSession()
      throws Exception {
    server.enqueue(allow("read_inbox"));
    McpStatelessServerFeatures.SyncToolSpecification spec = statelessSync("read_inbox");

    McpStatelessServerFeatures.SyncToolSpecification wrapped = contextGuard().wrap(spec);
    CallToolResult r = wrapped.callHandler().apply(ALICE, request("read_inbox", Map.of()));

    assertThat(wrapped.tool()).isSameAs(spec.tool());
    assertThat(text(r)).isEqualTo("ran read_inbox for alice");
    RecordedRequest check = server.takeRequest();
    assertThat(check.getBody().utf8()).contains("\"authorization_id\":\"auth_1\"");
    assertThat(check.getBody().utf8()).doesNotContain("session_id");
    assertThat(decisions).singleElement().satisfies(d -> assertThat(d.userId()).isEqualTo("alice"));
  }

  @Test
  void aDeniedStatelessCallDoesNotRunAndGetsTheDecision() {
    server.enqueue(deny("delete_mailbox", "scope_not_authorized"));

    CallToolResult r =
        contextGuard()
            .wrap(statelessSync("delete_mailbox"))
            .callHandler()
            .apply(ALICE, request("delete_mailbox", Map.of()));

    assertThat(r.isError()).isTrue();
    assertThat(text(r)).contains("\"reason\":\"scope_not_authorized\"");
    assertThat(toolThreads).isEmpty();
  }

  @Test
  void withoutAUserInTheContextTheStatelessCallIsDeniedLocally() {
    List<McpStatelessServerFeatures.SyncToolSpecification> wrapped =
        contextGuard().wrapAllStatelessSync(List.of(statelessSync("read_inbox")));

    CallToolResult r =
        wrapped
            .get(0)
            .callHandler()
            .apply(McpTransportContext.EMPTY, request("read_inbox", Map.of()));

    assertThat(text(r)).contains("\"reason\":\"missing_user_id\"").contains("\"local\":true");
    assertThat(server.getRequestCount()).isZero();
  }

  @Test
  void statelessAsyncCallsAreCheckedWithoutBlocking() {
    server.enqueue(allow("read_inbox"));
    server.enqueue(deny("delete_mailbox", "scope_not_authorized"));
    List<McpStatelessServerFeatures.AsyncToolSpecification> wrapped =
        contextGuard()
            .wrapAllStatelessAsync(
                List.of(statelessAsync("read_inbox"), statelessAsync("delete_mailbox")));

    CallToolResult allowed =
        wrapped.get(0).callHandler().apply(ALICE, request("read_inbox", Map.of())).block();
    CallToolResult denied =
        wrapped.get(1).callHandler().apply(ALICE, request("delete_mailbox", Map.of())).block();

    assertThat(text(allowed)).isEqualTo("ran read_inbox");
    assertThat(denied.isError()).isTrue();
    assertThat(toolThreads).hasSize(1);
  }

  @Test
  void wrappingAStatelessToolWithAnInvalidScopeFailsAtOnce() {
    AgentAuthToolGuard guard =
        guard()
            .userIdSource(UserIdSource.transportContext("user_id"))
            .scopeMapper(name -> "." + name)
            .build();

    assertThatThrownBy(() -> guard.wrap(statelessSync("read_inbox")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(".read_inbox");
  }

  @Test
  void withElicitationOnAStatelessServerStillReturnsTheConfirmResult() throws Exception {
    server.enqueue(confirm("send_email"));
    server.enqueue(confirm("send_email"));
    AgentAuthToolGuard g =
        guard().userIdSource(UserIdSource.transportContext("user_id")).elicitation(true).build();

    CallToolResult sync =
        g.wrap(statelessSync("send_email"))
            .callHandler()
            .apply(ALICE, request("send_email", Map.of()));
    CallToolResult async =
        g.wrap(statelessAsync("send_email"))
            .callHandler()
            .apply(ALICE, request("send_email", Map.of()))
            .block(java.time.Duration.ofSeconds(5));

    // decisions §19: no session, no way to ask the user; the nonce is left for the application
    for (CallToolResult r : java.util.List.of(sync, async)) {
      assertThat(structured(r))
          .containsEntry("decision", "confirm")
          .containsEntry("confirm_nonce", "nonce_1");
    }
    assertThat(server.getRequestCount()).isEqualTo(2);
    assertThat(toolThreads).isEmpty();
  }

  @Test
  void withElicitationASessionWhoseClientDeclaredNoCapabilityGetsTheConfirmResult()
      throws Exception {
    server.enqueue(confirm("send_email"));
    AgentAuthToolGuard g = guard().elicitation(true).build();

    CallToolResult r = call(g.wrap(syncTool("send_email")));

    assertThat(structured(r)).containsEntry("decision", "confirm");
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void aConfirmationTimeoutMustBePositive() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> AgentAuthToolGuard.builder().confirmationTimeout(java.time.Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("confirmation timeout > 0");
  }
}
