package dev.agentauth.benchmarks.spring;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.AuthorizationCreateParams;
import dev.agentauth.client.CheckParams;
import dev.agentauth.model.CheckResponse;
import dev.agentauth.server.AgentAuthServer;
import dev.agentauth.spring.AgentAuthToolCallbacks;
import dev.agentauth.spring.AuthenticatedUserExtractor;
import dev.agentauth.spring.autoconfigure.AgentAuthAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The starter's overhead per tool call in a Spring application: a tool specification bean that the
 * starter's post-processor guards (default active-grant resolver, cached; Micrometer decision
 * metrics; the user id from the transport context, as the starter's extractor puts it), called as
 * the MCP server calls it, against the bare {@code client.check} round trip it makes, both against
 * the same embedded reference server in one run. The target is a difference of at most 100 µs.
 */
@State(Scope.Benchmark)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+UseZGC"})
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class SpringGuardOverheadBenchmark {

  private static final String USER = "bench_user";

  private AgentAuthServer server;
  private AgentAuthClient client;
  private ConfigurableApplicationContext context;
  private McpStatelessServerFeatures.SyncToolSpecification guarded;
  private McpTransportContext transportContext;
  private CallToolRequest request;
  private CheckParams params;
  private ToolCallback chatGuarded;
  private ToolContext toolContext;

  /** A ChatClient tool: the in-process path of the starter (GuardedToolCallback). */
  private static final class SendEmail implements ToolCallback {
    private final ToolDefinition definition =
        ToolDefinition.builder()
            .name("send_email")
            .description("sends an e-mail")
            .inputSchema("{\"type\":\"object\",\"properties\":{\"to\":{\"type\":\"string\"}}}")
            .build();

    @Override
    public ToolDefinition getToolDefinition() {
      return definition;
    }

    @Override
    public String call(String toolInput) {
      return "sent";
    }

    @Override
    public String call(String toolInput, ToolContext toolContext) {
      return "sent";
    }
  }

  /** The application: one tool, and a meter registry. */
  @Configuration(proxyBeanMethods = false)
  @ImportAutoConfiguration(AgentAuthAutoConfiguration.class)
  static class App {
    @Bean
    List<McpStatelessServerFeatures.SyncToolSpecification> tools() {
      Tool tool =
          new Tool(
              "send_email",
              null,
              "sends an e-mail",
              Map.of("type", "object", "properties", Map.of("to", Map.of("type", "string"))),
              null,
              null,
              null,
              null);
      return List.of(
          new McpStatelessServerFeatures.SyncToolSpecification(
              tool, (ctx, req) -> CallToolResult.builder().addTextContent("sent").build()));
    }

    @Bean
    MeterRegistry meterRegistry() {
      return new SimpleMeterRegistry();
    }
  }

  @Setup(Level.Iteration)
  @SuppressWarnings("unchecked")
  public void setUp() {
    server = AgentAuthServer.builder().port(0).build().start();
    client = AgentAuthClient.builder().baseUrl(server.baseUrl()).apiKey(server.apiKey()).build();
    String authorizationId =
        client
            .authorizations()
            .create(
                AuthorizationCreateParams.inline()
                    .userId(USER)
                    .agentId("bench_agent")
                    .scope("email.send")
                    .expiresAt(Instant.now().plus(300, ChronoUnit.DAYS))
                    .build())
            .authorizationId();
    context =
        new SpringApplicationBuilder(App.class)
            .web(WebApplicationType.NONE)
            .properties(
                "agentauth.base-url=" + server.baseUrl(),
                "agentauth.api-key=" + server.apiKey(),
                "agentauth.mcp.agent-id=bench_agent",
                "agentauth.mcp.tool-scopes.send_email=email.send",
                "spring.main.banner-mode=off")
            .run();
    guarded =
        ((List<McpStatelessServerFeatures.SyncToolSpecification>)
                context.getBean("tools", List.class))
            .get(0);
    transportContext =
        McpTransportContext.create(Map.of(AuthenticatedUserExtractor.USER_ID_KEY, USER));
    request = new CallToolRequest("send_email", Map.of("to", "ada@example.org"), null);
    params = CheckParams.builder().authorizationId(authorizationId).scope("email.send").build();
    chatGuarded = context.getBean(AgentAuthToolCallbacks.class).guard(new SendEmail());
    toolContext = new ToolContext(Map.of("user_id", USER));
  }

  @TearDown(Level.Iteration)
  public void tearDown() {
    context.close();
    client.okHttpClient().connectionPool().evictAll();
    server.close();
  }

  /** The check round trip alone, through a client like the starter's. */
  @Benchmark
  public CheckResponse bareCheck() {
    return client.check(params);
  }

  /** A call of the tool the starter guarded: user, resolver, check, metrics, the tool. */
  @Benchmark
  public CallToolResult springGuardedCall() {
    CallToolResult r = guarded.callHandler().apply(transportContext, request);
    if (Boolean.TRUE.equals(r.isError())) {
      throw new IllegalStateException("the guarded call was not allowed: " + r);
    }
    return r;
  }

  /**
   * A ChatClient tool call guarded by the starter's GuardedToolCallback: user from the tool
   * context, the same resolver and check through the guard core, the tool.
   */
  @Benchmark
  public String chatGuardedCall() {
    String r = chatGuarded.call("{\"to\":\"ada@example.org\"}", toolContext);
    if (!"sent".equals(r)) {
      throw new IllegalStateException("the guarded call was not allowed: " + r);
    }
    return r;
  }
}
