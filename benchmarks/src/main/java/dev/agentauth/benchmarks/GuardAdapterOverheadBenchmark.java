package dev.agentauth.benchmarks;

import dev.agentauth.client.CheckParams;
import dev.agentauth.guard.GuardCall;
import dev.agentauth.guard.GuardOutcome;
import dev.agentauth.guard.GuardedTool;
import dev.agentauth.guard.ToolGuard;
import dev.agentauth.langchain4j.LangChain4jToolGuard;
import dev.agentauth.langchain4j.UserIdSource;
import dev.agentauth.mcp.AgentAuthToolGuard;
import dev.agentauth.model.CheckResponse;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.invocation.InvocationParameters;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.service.tool.ToolExecutionResult;
import dev.langchain4j.service.tool.ToolExecutor;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpAsyncServerExchange;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
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

/**
 * The cost of each adapter over the framework-neutral guard core, per guarded tool call: the bare
 * check, the core's decision, the MCP guard's call handler and the LangChain4j executor, all
 * against the same embedded server in one run, with the same authorization, scope and arguments.
 * The Spring starter's paths are measured in benchmarks/spring-ai (its own class path).
 */
@State(Scope.Benchmark)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+UseZGC"})
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class GuardAdapterOverheadBenchmark {
  private static final Map<String, Object> ARGUMENTS = Map.of("to", "ada@example.org");

  private LocalServer local;
  private CheckParams params;
  private ToolGuard core;
  private GuardedTool coreTool;
  private GuardCall coreCall;
  private SyncToolSpecification mcpGuarded;
  private McpSyncServerExchange exchange;
  private CallToolRequest request;
  private ToolExecutor langchain4jGuarded;
  private ToolExecutionRequest langchain4jRequest;
  private InvocationContext invocation;

  @Setup(Level.Iteration)
  public void setUp() {
    local = new LocalServer();
    String authorizationId = local.authorizationId;
    params = CheckParams.builder().authorizationId(authorizationId).scope("email.send").build();

    core =
        ToolGuard.builder(local.client)
            .authorizationResolver((user, name, args) -> Optional.of(authorizationId))
            .build();
    coreTool = core.tool("email.send", Set.of("to"));
    coreCall = new GuardCall("email.send", ARGUMENTS, null);

    Tool tool =
        new Tool(
            "email.send",
            null,
            "sends an e-mail",
            Map.of("type", "object", "properties", Map.of("to", Map.of("type", "string"))),
            null,
            null,
            null,
            null);
    mcpGuarded =
        AgentAuthToolGuard.builder()
            .client(local.client)
            .userIdSource(dev.agentauth.mcp.UserIdSource.transportContext("user_id"))
            .authorizationResolver((user, name, args) -> Optional.of(authorizationId))
            .build()
            .wrap(
                SyncToolSpecification.builder()
                    .tool(tool)
                    .callHandler(
                        (ex, req) -> CallToolResult.builder().addTextContent("sent").build())
                    .build());
    exchange =
        new McpSyncServerExchange(
            new McpAsyncServerExchange(
                "bench",
                null,
                null,
                null,
                McpTransportContext.create(Map.of("user_id", "bench_user"))));
    request = CallToolRequest.builder("email.send").arguments(ARGUMENTS).build();

    ToolSpecification spec =
        ToolSpecification.builder()
            .name("email.send")
            .parameters(JsonObjectSchema.builder().addStringProperty("to").build())
            .build();
    langchain4jGuarded =
        LangChain4jToolGuard.builder()
            .client(local.client)
            .userIdSource(UserIdSource.invocationParameter("user_id"))
            .authorizationResolver((user, name, args) -> Optional.of(authorizationId))
            .build()
            .guard(spec, (req, memoryId) -> "sent");
    langchain4jRequest =
        ToolExecutionRequest.builder()
            .id("call_1")
            .name("email.send")
            .arguments("{\"to\":\"ada@example.org\"}")
            .build();
    invocation =
        InvocationContext.builder()
            .chatMemoryId("bench")
            .invocationParameters(InvocationParameters.from(Map.of("user_id", "bench_user")))
            .build();
  }

  @TearDown(Level.Iteration)
  public void tearDown() {
    local.close();
  }

  /** The check round trip alone, through the client. */
  @Benchmark
  public CheckResponse bareCheck() {
    return local.client.check(params);
  }

  /** The core's decision: resolver, digest resource, the same check, the outcome. */
  @Benchmark
  public GuardOutcome coreDecide() {
    GuardOutcome o = core.decide(coreTool, "bench_user", coreCall);
    if (!o.allowed()) {
      throw new IllegalStateException("the call was not allowed: " + o);
    }
    return o;
  }

  /** An MCP tool call through AgentAuthToolGuard, as the MCP server calls the handler. */
  @Benchmark
  public CallToolResult mcpGuardedCall() {
    CallToolResult r = mcpGuarded.callHandler().apply(exchange, request);
    if (Boolean.TRUE.equals(r.isError())) {
      throw new IllegalStateException("the guarded call was not allowed: " + r);
    }
    return r;
  }

  /** A LangChain4j tool call through GuardedToolExecutor, as an AI service executes it. */
  @Benchmark
  public ToolExecutionResult langchain4jGuardedCall() {
    ToolExecutionResult r = langchain4jGuarded.executeWithContext(langchain4jRequest, invocation);
    if (r.isError()) {
      throw new IllegalStateException("the guarded call was not allowed: " + r.resultText());
    }
    return r;
  }
}
