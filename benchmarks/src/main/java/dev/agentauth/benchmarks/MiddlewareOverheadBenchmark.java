package dev.agentauth.benchmarks;

import dev.agentauth.client.CheckParams;
import dev.agentauth.mcp.AgentAuthToolGuard;
import dev.agentauth.mcp.UserIdSource;
import dev.agentauth.model.CheckResponse;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpAsyncServerExchange;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
 * Middleware overhead per guarded tool call: a tool wrapped by {@link AgentAuthToolGuard}, called
 * as the MCP server would call it, against the bare {@code client.check} round trip it makes, both
 * against the same embedded server in one run. The target is a difference of at most 100 µs.
 */
@State(Scope.Benchmark)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+UseZGC"})
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class MiddlewareOverheadBenchmark {
  private LocalServer local;
  private SyncToolSpecification guarded;
  private McpSyncServerExchange exchange;
  private CallToolRequest request;
  private CheckParams params;

  @Setup(Level.Iteration)
  public void setUp() {
    local = new LocalServer();
    Tool tool =
        new Tool(
            "email.send",
            null,
            "sends an e-mail",
            Map.of(
                "type", "object",
                "properties", Map.of("user_id", Map.of("type", "string")),
                "required", List.of("user_id")),
            null,
            null,
            null,
            null);
    SyncToolSpecification bare =
        SyncToolSpecification.builder()
            .tool(tool)
            .callHandler((ex, req) -> CallToolResult.builder().addTextContent("sent").build())
            .build();
    String authorizationId = local.authorizationId;
    guarded =
        AgentAuthToolGuard.builder()
            .client(local.client)
            .userIdSource(UserIdSource.argument())
            .authorizationResolver((user, name, args) -> Optional.of(authorizationId))
            .build()
            .wrap(bare);
    exchange =
        new McpSyncServerExchange(
            new McpAsyncServerExchange("bench", null, null, null, McpTransportContext.EMPTY));
    request =
        CallToolRequest.builder("email.send").arguments(Map.of("user_id", "bench_user")).build();
    params = CheckParams.builder().authorizationId(authorizationId).scope("email.send").build();
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

  /** A guarded tool call: resolve, check, map the decision, run the tool. */
  @Benchmark
  public CallToolResult guardedCall() {
    CallToolResult r = guarded.callHandler().apply(exchange, request);
    if (Boolean.TRUE.equals(r.isError())) {
      throw new IllegalStateException("the guarded call was not allowed: " + r);
    }
    return r;
  }
}
