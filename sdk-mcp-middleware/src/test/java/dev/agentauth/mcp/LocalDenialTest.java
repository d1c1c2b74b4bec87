package dev.agentauth.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import dev.agentauth.model.Decision;
import dev.agentauth.model.Reason;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** decisions §14: calls the middleware denies itself, with no service call and no receipt. */
class LocalDenialTest extends GuardTestSupport {

  private CallToolResult callWith(AgentAuthToolGuard g, Map<String, Object> arguments) {
    SyncToolSpecification guarded = g.wrap(syncTool("send_email"));
    return guarded.callHandler().apply(exchange(), request("send_email", arguments));
  }

  private void assertLocalDenial(CallToolResult r, Reason reason) throws Exception {
    assertThat(r.isError()).isTrue();
    assertThat(structured(r))
        .containsExactly(
            entry("decision", "deny"),
            entry("reason", reason.value()),
            entry("local", true),
            entry("message", ModelMessages.local("send_email", reason, null)));
    assertThat((String) structured(r).get("message"))
        .contains("send_email")
        .contains(
            Reason.MISSING_USER_ID.equals(reason)
                ? "No user is identified for this call"
                : "The user has not authorized send_email");
    assertThat(textJson(r)).isEqualTo(structured(r));
    assertThat(toolThreads).isEmpty();
    assertThat(server.getRequestCount()).isZero();
  }

  @Test
  void callWithoutUserIdIsDeniedLocallyAsMissingUserId() throws Exception {
    CallToolResult r = callWith(guard().build(), Map.of("to", "ada"));

    assertLocalDenial(r, Reason.MISSING_USER_ID);
    GuardDecision d = decisions.get(0);
    assertThat(d.local()).isTrue();
    assertThat(d.userId()).isNull();
    assertThat(d.authorizationId()).isNull();
    assertThat(d.receiptId()).isNull();
    assertThat(d.decision()).isEqualTo(Decision.DENY);
    assertThat(d.reason()).isEqualTo(Reason.MISSING_USER_ID);
  }

  @Test
  void blankNullOrNonStringUserIdCountsAsMissing() throws Exception {
    Map<String, Object> nullValue = new HashMap<>();
    nullValue.put("user_id", null);
    for (Map<String, Object> args :
        List.<Map<String, Object>>of(Map.of("user_id", " "), Map.of("user_id", 42), nullValue)) {
      assertLocalDenial(callWith(guard().build(), args), Reason.MISSING_USER_ID);
    }
    CallToolResult noArguments =
        guard()
            .build()
            .wrap(syncTool("send_email"))
            .callHandler()
            .apply(exchange(), request("send_email", null));
    assertLocalDenial(noArguments, Reason.MISSING_USER_ID);
  }

  @Test
  void resolverReturningNothingDeniesLocallyAsAuthorizationNotFound() throws Exception {
    AgentAuthToolGuard g =
        guard().authorizationResolver((userId, tool, args) -> Optional.empty()).build();

    CallToolResult r = callWith(g, u1());

    assertLocalDenial(r, Reason.AUTHORIZATION_NOT_FOUND);
    assertThat(decisions.get(0).userId()).isEqualTo("u_1");
    assertThat(decisions.get(0).local()).isTrue();
  }

  @Test
  void resolverReturningABlankIdOrNullIsTreatedAsNothing() throws Exception {
    assertLocalDenial(
        callWith(guard().authorizationResolver((u, t, a) -> Optional.of("")).build(), u1()),
        Reason.AUTHORIZATION_NOT_FOUND);
    assertLocalDenial(
        callWith(guard().authorizationResolver((u, t, a) -> null).build(), u1()),
        Reason.AUTHORIZATION_NOT_FOUND);
  }

  @Test
  void asyncResolverReturningNothingDeniesTheBlockingPathToo() throws Exception {
    AgentAuthToolGuard g =
        guard()
            .asyncAuthorizationResolver(
                (u, t, a) -> CompletableFuture.completedFuture(Optional.empty()))
            .build();

    assertLocalDenial(callWith(g, u1()), Reason.AUTHORIZATION_NOT_FOUND);
  }

  @Test
  void resolverSeesTheUserTheToolNameAndTheArguments() throws Exception {
    List<Object> seen = new CopyOnWriteArrayList<>();
    server.enqueue(allow("mcp.send_email"));
    AgentAuthToolGuard g =
        guard()
            .scopeMapper(n -> "mcp." + n)
            .authorizationResolver(
                (userId, tool, args) -> {
                  seen.add(userId);
                  seen.add(tool);
                  seen.add(args);
                  return Optional.of("auth_1");
                })
            .build();

    callWith(g, Map.of("user_id", "u_1", "to", "ada"));

    assertThat(seen).containsExactly("u_1", "send_email", Map.of("user_id", "u_1", "to", "ada"));
  }

  @Test
  void transportContextSourceIgnoresAUserIdArgumentTheModelWrote() throws Exception {
    List<String> resolvedFor = new CopyOnWriteArrayList<>();
    server.enqueue(allow("send_email"));
    AgentAuthToolGuard g =
        guard()
            .userIdSource(UserIdSource.transportContext("user_id"))
            .authorizationResolver(
                (userId, tool, args) -> {
                  resolvedFor.add(userId);
                  return Optional.of("auth_1");
                })
            .build();
    SyncToolSpecification guarded = g.wrap(syncTool("send_email"));

    guarded
        .callHandler()
        .apply(
            exchange(McpTransportContext.create(Map.of("user_id", "u_session"))),
            request("send_email", Map.of("user_id", "u_victim")));
    CallToolResult anonymous =
        guarded
            .callHandler()
            .apply(exchange(), request("send_email", Map.of("user_id", "u_victim")));

    assertThat(resolvedFor).containsExactly("u_session");
    assertThat(structured(anonymous)).containsEntry("reason", "missing_user_id");
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void resolverFailurePropagatesAndTheToolDoesNotRun() {
    AgentAuthToolGuard g =
        guard()
            .authorizationResolver(
                (u, t, a) -> {
                  throw new IllegalStateException("grant store down");
                })
            .build();

    assertThatThrownBy(() -> callWith(g, u1())).hasMessage("grant store down");
    assertThat(toolThreads).isEmpty();
    assertThat(server.getRequestCount()).isZero();
  }

  @Test
  void failedAsyncResolverStagePropagatesItsCauseOnTheBlockingPath() {
    AgentAuthToolGuard g =
        guard()
            .asyncAuthorizationResolver(
                (u, t, a) -> CompletableFuture.failedFuture(new IllegalStateException("db down")))
            .build();

    assertThatThrownBy(() -> callWith(g, u1()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("db down");
    assertThat(toolThreads).isEmpty();
  }
}
