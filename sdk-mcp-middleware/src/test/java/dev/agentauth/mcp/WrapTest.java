package dev.agentauth.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.modelcontextprotocol.server.McpServerFeatures.AsyncToolSpecification;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Building guards and wrapping tools: what is checked once, before any call. */
class WrapTest extends GuardTestSupport {

  @Test
  void wrappingKeepsTheToolDefinitionAndReplacesOnlyTheHandler() {
    SyncToolSpecification original = syncTool(toolWithOutputSchema("send_email"));

    SyncToolSpecification guarded = guard().build().wrap(original);

    assertThat(guarded.tool()).isSameAs(original.tool());
    assertThat(guarded.callHandler()).isNotSameAs(original.callHandler());
  }

  @Test
  void wrapAllKeepsTheOrder() {
    AgentAuthToolGuard g = guard().build();

    List<SyncToolSpecification> sync = g.wrapAll(syncTool("a"), syncTool("b"));
    List<AsyncToolSpecification> async = g.wrapAllAsync(List.of(asyncTool("c"), asyncTool("d")));
    List<AsyncToolSpecification> varargs = g.wrapAll(asyncTool("e"));
    List<SyncToolSpecification> list = g.wrapAllSync(List.of(syncTool("f")));

    assertThat(sync).extracting(s -> s.tool().name()).containsExactly("a", "b");
    assertThat(async).extracting(s -> s.tool().name()).containsExactly("c", "d");
    assertThat(varargs).extracting(s -> s.tool().name()).containsExactly("e");
    assertThat(list).extracting(s -> s.tool().name()).containsExactly("f");
  }

  @Test
  void aToolNameThatIsNoValidScopeNameIsRejectedWhenWrapping() {
    AgentAuthToolGuard g = guard().build();

    assertThatThrownBy(() -> g.wrap(syncTool("send email")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"send email\"");
    assertThatThrownBy(() -> g.wrap(syncTool(".hidden")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> g.wrap(syncTool("x".repeat(201))))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(g.wrap(syncTool("crm:contacts/read.v2-beta_1"))).isNotNull();
  }

  @Test
  void theScopeMapperResultIsValidatedToo() {
    AgentAuthToolGuard g = guard().scopeMapper(n -> null).build();

    assertThatThrownBy(() -> g.wrap(syncTool("send_email")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("found: null");
  }

  @Test
  void argumentSourceRejectsASchemaThatForbidsTheUserIdArgument() {
    Tool closed =
        Tool.builder()
            .name("send_email")
            .inputSchema(
                Map.of(
                    "type",
                    "object",
                    "properties",
                    Map.of("to", Map.of("type", "string")),
                    "additionalProperties",
                    false))
            .build();
    Tool open =
        Tool.builder()
            .name("send_email")
            .inputSchema(Map.of("type", "object", "properties", Map.of()))
            .build();

    assertThatThrownBy(() -> guard().build().wrap(syncTool(closed)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"user_id\"")
        .hasMessageContaining("additionalProperties: false");
    assertThat(guard().build().wrap(syncTool(open))).isNotNull();
    assertThat(
            guard()
                .userIdSource(UserIdSource.transportContext("user_id"))
                .build()
                .wrap(syncTool(closed)))
        .isNotNull();
  }

  @Test
  void theBuilderRequiresAnExplicitUserIdSource() {
    assertThatThrownBy(
            () ->
                AgentAuthToolGuard.builder()
                    .client(client)
                    .authorizationResolver((u, t, a) -> Optional.empty())
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("UserIdSource.transportContext")
        .hasMessageContaining("UserIdSource.argument()");
  }

  @Test
  void theBuilderRequiresAClientAndAResolver() {
    assertThatThrownBy(
            () ->
                AgentAuthToolGuard.builder()
                    .userIdSource(UserIdSource.argument())
                    .authorizationResolver((u, t, a) -> Optional.empty())
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("client(");
    assertThatThrownBy(
            () ->
                AgentAuthToolGuard.builder()
                    .client(client)
                    .userIdSource(UserIdSource.argument())
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("authorizationResolver(");
  }

  @Test
  void userIdSourcesReadWhatTheySay() {
    ToolCall call =
        new ToolCall(
            "t",
            Map.of("user_id", "u_arg", "owner", "u_owner"),
            io.modelcontextprotocol.common.McpTransportContext.create(Map.of("principal", "u_ctx")),
            null);

    assertThat(UserIdSource.argument().userId(call)).isEqualTo("u_arg");
    assertThat(UserIdSource.argument("owner").userId(call)).isEqualTo("u_owner");
    assertThat(UserIdSource.transportContext("principal").userId(call)).isEqualTo("u_ctx");
    assertThat(UserIdSource.transportContext(c -> "fixed").userId(call)).isEqualTo("fixed");
    assertThat(UserIdSource.transportContext("missing").userId(call)).isNull();
    assertThatThrownBy(() -> UserIdSource.argument(" "))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
