package dev.agentauth.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.FallbackPolicy;
import dev.agentauth.mcp.AgentAuthToolGuard;
import dev.agentauth.mcp.AuthorizationResolver;
import dev.agentauth.mcp.DecisionListener;
import dev.agentauth.mcp.ToolCall;
import dev.agentauth.mcp.UserIdSource;
import dev.agentauth.model.FallbackMode;
import dev.agentauth.spring.ActiveGrantResolver;
import dev.agentauth.spring.AgentAuthToolCallbacks;
import dev.agentauth.spring.AuthenticatedUserExtractor;
import dev.agentauth.spring.MicrometerDecisionListener;
import dev.agentauth.spring.ToolScopes;
import dev.agentauth.spring.autoconfigure.properties.AgentAuthProperties;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.ai.mcp.customizer.McpSyncServerCustomizer;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.publisher.Mono;

/** What the auto-configuration defines, from which properties, and how it backs off. */
class AgentAuthAutoConfigurationTest {

  private static final McpTransportContext NO_USER = McpTransportContext.EMPTY;

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(AgentAuthAutoConfiguration.class))
          .withPropertyValues(
              "agentauth.base-url=http://127.0.0.1:9",
              "agentauth.api-key=sk_test_key",
              "agentauth.mcp.agent-id=test-bot");

  @Test
  void definesTheClientTheGuardAndItsParts() {
    runner.run(
        ctx -> {
          assertThat(ctx).hasSingleBean(AgentAuthClient.class);
          assertThat(ctx).hasSingleBean(AgentAuthToolGuard.class);
          assertThat(ctx).hasSingleBean(ActiveGrantResolver.class);
          assertThat(ctx).hasSingleBean(UserIdSource.class);
          assertThat(ctx).hasSingleBean(ToolScopes.class);
          assertThat(ctx).hasSingleBean(AgentAuthToolCallbacks.class);
          assertThat(ctx).hasSingleBean(ToolSpecificationGuardPostProcessor.class);
          assertThat(ctx).hasSingleBean(MicrometerDecisionListener.class);
        });
  }

  @Test
  void withoutABaseUrlStartupFailsNamingTheProperty() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(AgentAuthAutoConfiguration.class))
        .withPropertyValues("agentauth.api-key=sk_test_key")
        .run(
            ctx ->
                assertThat(ctx)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("agentauth.base-url is not set"));
  }

  @Test
  void withoutAnApiKeyStartupFailsNamingThePropertyAndNoSecretIsRendered() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(AgentAuthAutoConfiguration.class))
        .withPropertyValues("agentauth.base-url=http://127.0.0.1:9")
        .run(
            ctx ->
                assertThat(ctx)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("agentauth.api-key is not set"));
    AgentAuthProperties p = new AgentAuthProperties();
    p.setApiKey("sk_secret_value");
    assertThat(p.toString()).doesNotContain("sk_secret_value").contains("apiKey=set");
  }

  @Test
  void clientPropertiesAndTheFallbackPolicyAreApplied() {
    runner
        .withPropertyValues(
            "agentauth.fallback.mode=fail-open",
            "agentauth.fallback.scopes.wire_money=fail-closed",
            "agentauth.check-timeout=750ms")
        .run(
            ctx -> {
              FallbackPolicy policy = ctx.getBean(AgentAuthClient.class).fallbackPolicy();
              assertThat(policy.modeFor("read_inbox")).isEqualTo(FallbackMode.FAIL_OPEN);
              assertThat(policy.modeFor("wire_money")).isEqualTo(FallbackMode.FAIL_CLOSED);
            });
    runner
        .withPropertyValues("agentauth.fallback.mode=disabled")
        .run(
            ctx ->
                assertThat(ctx.getBean(AgentAuthClient.class).fallbackPolicy().isEnabled())
                    .isFalse());
  }

  @Test
  void aPerScopeDisabledFallbackIsAConfigurationError() {
    runner
        .withPropertyValues("agentauth.fallback.scopes.x=disabled")
        .run(
            ctx ->
                assertThat(ctx)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("agentauth.fallback.scopes.x")
                    .hasMessageContaining("found disabled"));
  }

  @Test
  void toolScopesComeFromTheMappingElseThePrefix() {
    runner
        .withPropertyValues(
            "agentauth.mcp.tool-scopes.send_email=email.send", "agentauth.mcp.scope-prefix=mcp.")
        .run(
            ctx -> {
              ToolScopes scopes = ctx.getBean(ToolScopes.class);
              assertThat(scopes.apply("send_email")).isEqualTo("email.send");
              assertThat(scopes.apply("read_inbox")).isEqualTo("mcp.read_inbox");
            });
  }

  @Test
  void theUserIdComesFromTheTransportContextByDefaultAndFromAnArgumentOnlyWhenConfigured() {
    ToolCall call =
        new ToolCall(
            "t",
            Map.of("user_id", "forged"),
            McpTransportContext.create(Map.of(AuthenticatedUserExtractor.USER_ID_KEY, "alice")),
            null);
    runner.run(ctx -> assertThat(ctx.getBean(UserIdSource.class).userId(call)).isEqualTo("alice"));
    runner
        .withPropertyValues("agentauth.mcp.user-id.source=argument")
        .run(ctx -> assertThat(ctx.getBean(UserIdSource.class).userId(call)).isEqualTo("forged"));
  }

  @Test
  void everyBeanBacksOffForTheApplicationsOwn() {
    runner
        .withUserConfiguration(OwnBeans.class)
        .run(
            ctx -> {
              assertThat(ctx.getBean(AgentAuthClient.class)).isSameAs(OwnBeans.CLIENT);
              assertThat(ctx).doesNotHaveBean(ActiveGrantResolver.class);
              assertThat(ctx.getBean(AuthorizationResolver.class)).isSameAs(OwnBeans.RESOLVER);
              assertThat(ctx.getBean(UserIdSource.class)).isSameAs(OwnBeans.USER_ID_SOURCE);
              assertThat(ctx.getBean(ToolScopes.class)).isSameAs(OwnBeans.SCOPES);
              assertThat(ctx).hasSingleBean(AgentAuthToolGuard.class);
            });
  }

  @Test
  void mcpGuardingCanBeSwitchedOff() {
    runner
        .withPropertyValues("agentauth.mcp.enabled=false")
        .withUserConfiguration(SyncTools.class)
        .run(
            ctx -> {
              assertThat(ctx).doesNotHaveBean(AgentAuthToolGuard.class);
              assertThat(ctx).doesNotHaveBean(ToolSpecificationGuardPostProcessor.class);
              assertThat(text(callFirst(ctx.getBean("syncTools", List.class)))).isEqualTo("ran");
            });
  }

  @Test
  void everyKindOfToolSpecificationBeanIsGuarded() {
    runner
        .withUserConfiguration(SyncTools.class, OtherTools.class)
        .run(
            ctx -> {
              // No user in the transport context: a guarded tool is denied locally and not run.
              assertThat(text(callFirst(ctx.getBean("syncTools", List.class))))
                  .contains("\"reason\":\"missing_user_id\"");
              McpServerFeatures.SyncToolSpecification single =
                  ctx.getBean("singleTool", McpServerFeatures.SyncToolSpecification.class);
              assertThat(text(single.callHandler().apply(null, request("single"))))
                  .contains("missing_user_id");
              @SuppressWarnings("unchecked")
              List<McpStatelessServerFeatures.SyncToolSpecification> stateless =
                  ctx.getBean("statelessTools", List.class);
              assertThat(text(stateless.get(0).callHandler().apply(NO_USER, request("stateless"))))
                  .contains("missing_user_id");
              @SuppressWarnings("unchecked")
              List<McpServerFeatures.AsyncToolSpecification> async =
                  ctx.getBean("asyncTools", List.class);
              assertThat(text(async.get(0).callHandler().apply(null, request("async")).block()))
                  .contains("missing_user_id");
              @SuppressWarnings("unchecked")
              List<McpStatelessServerFeatures.AsyncToolSpecification> statelessAsync =
                  ctx.getBean("statelessAsyncTools", List.class);
              assertThat(
                      text(
                          statelessAsync
                              .get(0)
                              .callHandler()
                              .apply(NO_USER, request("stateless_async"))
                              .block()))
                  .contains("missing_user_id");
              assertThat(ctx.getBean("names", List.class)).containsExactly("not", "tools");
            });
  }

  @Test
  void withHidingOnTheSyncServerCustomizerIsDecoratedNotReplaced() {
    runner
        .withPropertyValues("agentauth.mcp.hide-unauthorized-tools=true")
        .withUserConfiguration(Customizer.class)
        .run(
            ctx -> {
              assertThat(ctx).hasSingleBean(McpSyncServerCustomizer.class);
              assertThat(ctx.getBean(McpSyncServerCustomizer.class))
                  .isNotSameAs(Customizer.ORIGINAL);
            });
    runner
        .withUserConfiguration(Customizer.class)
        .run(
            ctx ->
                assertThat(ctx.getBean(McpSyncServerCustomizer.class))
                    .isSameAs(Customizer.ORIGINAL));
  }

  @Test
  void hidingTakesTheRelaxedFormsOfItsName() {
    runner
        .withPropertyValues("agentauth.mcp.hideUnauthorizedTools=true")
        .withUserConfiguration(Customizer.class)
        .run(
            ctx -> {
              assertThat(ctx.getBean(AgentAuthProperties.class).getMcp().isHideUnauthorizedTools())
                  .isTrue();
              assertThat(ctx.getBean(McpSyncServerCustomizer.class))
                  .isNotSameAs(Customizer.ORIGINAL);
            });
  }

  @Test
  void decisionsAreCountedWhenTheApplicationHasAMeterRegistry() {
    runner
        .withUserConfiguration(Meters.class, SyncTools.class)
        .run(
            ctx -> {
              callFirst(ctx.getBean("syncTools", List.class));
              MeterRegistry registry = ctx.getBean(MeterRegistry.class);
              assertThat(
                      registry
                          .get(MicrometerDecisionListener.DECISIONS)
                          .tags(
                              "tool", "read_inbox",
                              "decision", "deny",
                              "reason", "missing_user_id",
                              "local", "true",
                              "fallback", "none")
                          .counter()
                          .count())
                  .isEqualTo(1.0);
              assertThat(registry.get(MicrometerDecisionListener.LATENCY).timer().count())
                  .isEqualTo(1);
            });
    // Without a registry, decisions are still made and nothing is recorded.
    runner
        .withUserConfiguration(SyncTools.class)
        .run(
            ctx ->
                assertThat(text(callFirst(ctx.getBean("syncTools", List.class)))).contains("deny"));
  }

  @Test
  void everyDecisionListenerBeanIsTold() {
    List<String> told = new CopyOnWriteArrayList<>();
    runner
        .withUserConfiguration(SyncTools.class)
        .withBean(
            "first", DecisionListener.class, () -> d -> told.add("first " + d.reason().value()))
        .withBean(
            "second", DecisionListener.class, () -> d -> told.add("second " + d.reason().value()))
        .run(
            ctx -> {
              callFirst(ctx.getBean("syncTools", List.class));
              assertThat(told)
                  .containsExactlyInAnyOrder("first missing_user_id", "second missing_user_id");
            });
  }

  // ---- support ----------------------------------------------------------------------------------

  static CallToolRequest request(String tool) {
    return new CallToolRequest(tool, Map.of());
  }

  static Tool tool(String name) {
    return Tool.builder(name, Map.of("type", "object")).build();
  }

  static CallToolResult ran() {
    return CallToolResult.builder().addTextContent("ran").build();
  }

  static CallToolResult callFirst(List<?> specs) {
    McpServerFeatures.SyncToolSpecification spec =
        (McpServerFeatures.SyncToolSpecification) specs.get(0);
    return spec.callHandler().apply(null, request(spec.tool().name()));
  }

  static String text(CallToolResult r) {
    return ((TextContent) r.content().get(0)).text();
  }

  @Configuration(proxyBeanMethods = false)
  static class SyncTools {
    @Bean
    List<McpServerFeatures.SyncToolSpecification> syncTools() {
      return List.of(
          McpServerFeatures.SyncToolSpecification.builder()
              .tool(tool("read_inbox"))
              .callHandler((exchange, request) -> ran())
              .build());
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class OtherTools {
    @Bean
    McpServerFeatures.SyncToolSpecification singleTool() {
      return McpServerFeatures.SyncToolSpecification.builder()
          .tool(tool("single"))
          .callHandler((exchange, request) -> ran())
          .build();
    }

    @Bean
    List<McpStatelessServerFeatures.SyncToolSpecification> statelessTools() {
      return List.of(
          new McpStatelessServerFeatures.SyncToolSpecification(
              tool("stateless"), (context, request) -> ran()));
    }

    @Bean
    List<McpStatelessServerFeatures.AsyncToolSpecification> statelessAsyncTools() {
      return List.of(
          new McpStatelessServerFeatures.AsyncToolSpecification(
              tool("stateless_async"), (context, request) -> Mono.just(ran())));
    }

    @Bean
    List<McpServerFeatures.AsyncToolSpecification> asyncTools() {
      return List.of(
          McpServerFeatures.AsyncToolSpecification.builder()
              .tool(tool("async"))
              .callHandler((exchange, request) -> Mono.just(ran()))
              .build());
    }

    @Bean
    List<String> names() {
      return List.of("not", "tools");
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnBeans {
    static final AgentAuthClient CLIENT =
        AgentAuthClient.builder().baseUrl("http://127.0.0.1:9").apiKey("sk_own").build();
    static final AuthorizationResolver RESOLVER = (user, tool, args) -> Optional.of("auth_own");
    static final UserIdSource USER_ID_SOURCE = call -> "own-user";
    static final ToolScopes SCOPES = new ToolScopes(Map.of(), "own.");

    @Bean
    AgentAuthClient ownClient() {
      return CLIENT;
    }

    @Bean
    AuthorizationResolver ownResolver() {
      return RESOLVER;
    }

    @Bean
    UserIdSource ownUserIdSource() {
      return USER_ID_SOURCE;
    }

    @Bean
    ToolScopes ownScopes() {
      return SCOPES;
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class Customizer {
    static final McpSyncServerCustomizer ORIGINAL = builder -> {};

    @Bean
    McpSyncServerCustomizer servletMcpSyncServerCustomizer() {
      return ORIGINAL;
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class Meters {
    @Bean
    MeterRegistry meterRegistry() {
      return new SimpleMeterRegistry();
    }
  }
}
