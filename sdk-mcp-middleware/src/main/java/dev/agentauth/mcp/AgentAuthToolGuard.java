package dev.agentauth.mcp;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.FallbackPolicy;
import dev.agentauth.guard.GuardedTool;
import dev.agentauth.guard.ToolGuard;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpAsyncServerExchange;
import io.modelcontextprotocol.server.McpServerFeatures.AsyncToolSpecification;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.LongSupplier;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Guards the tools of an MCP server (MCP Java SDK) with agentauth: before a tool runs, its call is
 * checked ({@code POST /v1/check}, the tool name as the single scope) for the calling user's
 * authorization. The SDK has no interceptor for tool calls, so the guard decorates tool
 * specifications before the server is built.
 *
 * <pre>{@code
 * AgentAuthToolGuard guard = AgentAuthToolGuard.builder()
 *     .client(agentAuthClient)
 *     .userIdSource(UserIdSource.transportContext("user_id"))     // trusted: see UserIdSource
 *     .authorizationResolver((userId, tool, args) -> grants.find(userId, "support-bot"))
 *     .resourceBinding("delete_note", ResourceBinding.template("notes:{id}"))
 *     .contextExtractor(call -> Map.of("initiated_by", "agent"))
 *     .listener(d -> log.info("{} {} {} in {}", d.toolName(), d.decision(), d.reason(), d.latency()))
 *     .build();
 *
 * McpSyncServer server = McpServer.sync(transportProvider)
 *     .capabilities(ServerCapabilities.builder().tools(true).build())
 *     .tools(guard.wrapAll(sendEmail, readInbox))
 *     .build();
 * }</pre>
 *
 * <p>For each call of a wrapped tool:
 *
 * <ol>
 *   <li>The user id comes from the {@link UserIdSource} chosen in the builder. None: the call is
 *       denied locally with {@code missing_user_id}.
 *   <li>The {@link AuthorizationResolver} (or {@link AsyncAuthorizationResolver}) maps user, tool
 *       and arguments to an {@code authorization_id}. Empty: denied locally with {@code
 *       authorization_not_found}. Local denials carry {@code "local": true}, no receipt, and make
 *       no service call.
 *   <li>The tool's {@link ResourceBinding} names the call: by default {@code <tool>:} + a digest of
 *       its arguments, so that a confirmation or an escalation approval covers only that call (see
 *       {@link Builder#resourceBinding(String, ResourceBinding)}). A template argument that is
 *       missing or unusable: denied locally with {@value ResourceBindingException#REASON}.
 *   <li>The check asks for one scope, the tool name (or what the {@linkplain
 *       Builder#scopeMapper(Function) scope mapper} makes of it), with that {@code resource} and
 *       the {@code context}, {@code session_id} and cost estimate the configured extractors return.
 *   <li>{@code allow} runs the wrapped tool, unchanged. {@code deny}, {@code confirm} and {@code
 *       escalate} return an error result instead (below); the tool does not run. With {@linkplain
 *       Builder#elicitation(boolean) elicitation} on, a {@code confirm} first asks the user in
 *       their client and, once they approve, re-checks and runs the tool in the same call.
 * </ol>
 *
 * <p><b>Error results</b> have {@code isError: true}, one text block holding the decision as JSON,
 * and the same object as {@code structuredContent}: {@code decision} and {@code reason}; for {@code
 * confirm} also {@code confirm_nonce}, {@code confirm_expires_at} and {@code confirm_prompt_hint}
 * (the client asks the user, resolves the nonce, and retries); for {@code escalate} {@code
 * escalation_id}, {@code escalation_to} (when configured) and {@code escalation_expires_at} (the
 * client routes to the approver and retries once approved); {@code receipt_id} when the service
 * issued a receipt; and always a one-sentence {@code message} for the model (who must act, whether
 * calling again helps, what to tell the user). A tool that declares an {@code outputSchema} gets
 * the object in {@code _meta} under {@value #DECISION_META_KEY} instead of {@code
 * structuredContent}, because MCP clients (the TypeScript SDK among them) validate structured
 * content against the output schema even on errors.
 *
 * <p><b>When the service cannot answer</b> (timeout, connection failure, 5xx after retries) the
 * client's {@link FallbackPolicy} decides per scope: {@code fail_closed} (the default) yields an
 * error result whose object also has {@code "fallback": true} and {@code fallback_mode}, with
 * reason {@code fallback_closed_timeout}, {@code fallback_closed_unreachable} or {@code
 * fallback_closed_server_error}; {@code fail_open} runs the tool ({@code fallback_open_*}). A
 * client with {@link FallbackPolicy#disabled()} throws, and so does a 400 (input the service
 * rejects): the tool does not run and the MCP client receives a JSON-RPC error. A 401 or 403 (the
 * guard's own key revoked, expired or lacking the role) is an error result instead, reason {@code
 * service_unavailable}, with one WARN line in the log and no stack trace.
 *
 * <p>Each fallback is logged once, by the client, the one layer every check goes through: a WARN
 * line on {@code dev.agentauth.client.fallback} naming the tool's scope (after the scope mapper),
 * its mode and reason, rate-limited (see {@link FallbackPolicy}). The guard adds no line of its
 * own; its listener sees every fallback decision with the tool's name. Whoever can slow or block
 * the service decides every {@code fail_open} tool.
 *
 * <p><b>Keep {@code fail_open} away from model-written input.</b> Tool arguments are written by the
 * model. A tool whose {@linkplain Builder#resourceExtractor(Function) resource}, {@linkplain
 * Builder#contextExtractor(Function) context} or {@linkplain Builder#sessionIdExtractor(Function)
 * session id} comes from its arguments must be {@code fail_closed}: under {@code fail_open}, an
 * argument crafted to make the service fail would turn a denial into an allow.
 *
 * <p><b>Sync and async.</b> {@link #wrap(SyncToolSpecification)} checks with the blocking client
 * (the MCP SDK runs sync tools off its event threads). {@link #wrap(AsyncToolSpecification)} uses
 * the client's async API and never blocks: the check runs on OkHttp's dispatcher, and the tool is
 * subscribed on the {@linkplain Builder#asyncScheduler(Scheduler) async scheduler} (default {@link
 * Schedulers#parallel()}) so that it never holds an HTTP dispatcher thread.
 *
 * <p><b>Input schemas.</b> The MCP server validates arguments against the tool's input schema
 * before any handler runs. With {@link UserIdSource#argument()}, declare {@code user_id} (a string)
 * in every guarded tool's schema; wrapping a tool whose schema forbids it ({@code
 * "additionalProperties": false} without the property) fails at once.
 *
 * <p>Immutable and thread-safe; build one guard and wrap every tool with it.
 */
public final class AgentAuthToolGuard {

  /**
   * The {@code _meta} key holding the decision object on error results of tools that declare an
   * output schema: {@value}.
   */
  public static final String DECISION_META_KEY = "dev.agentauth/decision";

  /** How long the guard waits for the user's answer to an elicitation by default: 2 minutes. */
  public static final Duration DEFAULT_CONFIRMATION_TIMEOUT = Duration.ofMinutes(2);

  private final AgentAuthClient client;
  private final UserIdSource userIdSource;
  private final AuthorizationResolver resolver;
  private final AsyncAuthorizationResolver asyncResolver;
  private final Function<String, String> scopeMapper;
  private final ResourceBinding defaultBinding;
  private final Map<String, ResourceBinding> bindings;
  private final Scheduler asyncScheduler;
  private final Duration visibilityCacheTtl;
  private final ToolGuard core;
  private final GuardedCalls calls;

  private AgentAuthToolGuard(Builder b) {
    this.client = b.client;
    this.userIdSource = b.userIdSource;
    this.resolver = b.resolver;
    this.asyncResolver = b.asyncResolver;
    this.scopeMapper = b.scopeMapper;
    this.defaultBinding =
        b.resourceExtractor == null
            ? ResourceBinding.argumentsDigest()
            : ResourceBinding.extractor(b.resourceExtractor);
    this.bindings = Map.copyOf(b.bindings);
    this.asyncScheduler = b.asyncScheduler;
    this.visibilityCacheTtl = b.visibilityCacheTtl;
    this.core = core(b, defaultBinding, bindings);
    this.calls =
        new GuardedCalls(
            core,
            b.userIdSource,
            b.asyncScheduler,
            b.elicitation ? new Confirmations(b.client, b.confirmationTimeout) : null);
  }

  /** The framework-neutral guard this one adapts: the MCP extractors see the call's ToolCall. */
  private static ToolGuard core(
      Builder b, ResourceBinding defaultBinding, Map<String, ResourceBinding> bindings) {
    ToolGuard.Builder core =
        ToolGuard.builder(b.client)
            .scopeMapper(b.scopeMapper)
            .defaultResourceBinding(defaultBinding.core())
            .nanoTime(b.nanoTime)
            .loggerName(AgentAuthToolGuard.class.getName());
    bindings.forEach((tool, binding) -> core.resourceBinding(tool, binding.core()));
    if (b.asyncResolver != null) {
      core.asyncAuthorizationResolver(b.asyncResolver::resolve);
    } else {
      core.authorizationResolver(b.resolver::resolve);
    }
    if (b.contextExtractor != null) {
      Function<ToolCall, Map<String, Object>> f = b.contextExtractor;
      core.contextExtractor(call -> f.apply(ToolCall.of(call)));
    }
    if (b.sessionIdExtractor != null) {
      Function<ToolCall, String> f = b.sessionIdExtractor;
      core.sessionIdExtractor(call -> f.apply(ToolCall.of(call)));
    }
    if (b.estimatedCostExtractor != null) {
      Function<ToolCall, Long> f = b.estimatedCostExtractor;
      core.estimatedCostExtractor(call -> f.apply(ToolCall.of(call)));
    }
    if (b.listener != null) {
      DecisionListener l = b.listener;
      core.listener(
          d ->
              l.onDecision(
                  new GuardDecision(
                      d.toolName(),
                      d.scope(),
                      d.userId(),
                      d.authorizationId(),
                      d.decision(),
                      d.reason(),
                      d.latency(),
                      d.receiptId(),
                      d.local(),
                      d.fallbackMode())));
    }
    return core.build();
  }

  /** Returns a builder; the client, the user id source and a resolver are required. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Returns {@code spec} with its call handler guarded; the tool definition is unchanged.
   *
   * @throws IllegalArgumentException if the tool's scope (its name, after the scope mapper) is not
   *     a valid scope name (1–200 characters from {@code A-Z a-z 0-9 . _ - : /}, not starting or
   *     ending with {@code .}), or the user id comes from an argument the tool's input schema
   *     forbids
   * @throws IllegalStateException if the MCP Java SDK has no JSON binding on the class path, which
   *     an MCP server cannot run without ({@code mcp-json-jackson2} or {@code mcp-json-jackson3}:
   *     the message names both)
   */
  public SyncToolSpecification wrap(SyncToolSpecification spec) {
    Objects.requireNonNull(spec, "spec");
    McpJsonBinding.require();
    GuardedCalls.Guarded g = prepare(spec.tool());
    BiFunction<McpSyncServerExchange, CallToolRequest, CallToolResult> delegate =
        Objects.requireNonNull(spec.callHandler(), "spec.callHandler()");
    return new SyncToolSpecification(
        g.tool(),
        (exchange, request) ->
            calls.guardSync(
                g,
                () -> delegate.apply(exchange, request),
                exchange == null ? null : exchange.transportContext(),
                exchange == null ? null : exchange.sessionId(),
                request,
                Elicitor.of(exchange)));
  }

  /**
   * Returns {@code spec} with its call handler guarded without blocking; the tool definition is
   * unchanged.
   *
   * @throws IllegalArgumentException as {@link #wrap(SyncToolSpecification)}
   * @throws IllegalStateException as {@link #wrap(SyncToolSpecification)}
   */
  public AsyncToolSpecification wrap(AsyncToolSpecification spec) {
    Objects.requireNonNull(spec, "spec");
    McpJsonBinding.require();
    GuardedCalls.Guarded g = prepare(spec.tool());
    BiFunction<McpAsyncServerExchange, CallToolRequest, Mono<CallToolResult>> delegate =
        Objects.requireNonNull(spec.callHandler(), "spec.callHandler()");
    return new AsyncToolSpecification(
        g.tool(),
        (exchange, request) ->
            calls.guardAsync(
                g,
                () -> delegate.apply(exchange, request),
                exchange == null ? null : exchange.transportContext(),
                exchange == null ? null : exchange.sessionId(),
                request,
                Elicitor.of(exchange)));
  }

  /**
   * Returns the stateless {@code spec} with its call handler guarded; the tool definition is
   * unchanged. Stateless servers hand the handler the request's {@link McpTransportContext}
   * directly, and have no session: {@link ToolCall#sessionId()} is {@code null}.
   *
   * @throws IllegalArgumentException as {@link #wrap(SyncToolSpecification)}
   */
  public McpStatelessServerFeatures.SyncToolSpecification wrap(
      McpStatelessServerFeatures.SyncToolSpecification spec) {
    Objects.requireNonNull(spec, "spec");
    GuardedCalls.Guarded g = prepare(spec.tool());
    BiFunction<McpTransportContext, CallToolRequest, CallToolResult> delegate =
        Objects.requireNonNull(spec.callHandler(), "spec.callHandler()");
    return new McpStatelessServerFeatures.SyncToolSpecification(
        g.tool(),
        (context, request) ->
            calls.guardSync(
                g, () -> delegate.apply(context, request), context, null, request, null));
  }

  /**
   * Returns the stateless {@code spec} with its call handler guarded without blocking; the tool
   * definition is unchanged.
   *
   * @throws IllegalArgumentException as {@link #wrap(SyncToolSpecification)}
   */
  public McpStatelessServerFeatures.AsyncToolSpecification wrap(
      McpStatelessServerFeatures.AsyncToolSpecification spec) {
    Objects.requireNonNull(spec, "spec");
    GuardedCalls.Guarded g = prepare(spec.tool());
    BiFunction<McpTransportContext, CallToolRequest, Mono<CallToolResult>> delegate =
        Objects.requireNonNull(spec.callHandler(), "spec.callHandler()");
    return new McpStatelessServerFeatures.AsyncToolSpecification(
        g.tool(),
        (context, request) ->
            calls.guardAsync(
                g, () -> delegate.apply(context, request), context, null, request, null));
  }

  /**
   * Returns the filter that hides, in {@code tools/list}, the tools the caller has no active
   * authorization for (decisions §17): {@code
   * McpServer.sync(...).addToolFilter(guard.toolFilter())} or, on async and stateless async
   * servers, {@code addToolFilter(guard.toolFilter().async())}. Hiding is a convenience: calls of
   * every tool, hidden or not, are still checked. See {@link AgentAuthToolFilter}.
   *
   * @throws IllegalStateException if the user id comes from a tool argument ({@link
   *     UserIdSource#argument()}): a listing has no arguments
   */
  public AgentAuthToolFilter toolFilter() {
    if (userIdSource instanceof ArgumentUserIdSource) {
      throw new IllegalStateException(
          "expected a user id source reading the transport context for tools/list filtering,"
              + " found the tool argument source: a tools/list request has no tool arguments. Use"
              + " UserIdSource.transportContext(...) to hide tools");
    }
    return new AgentAuthToolFilter(
        client,
        userIdSource,
        resolver,
        asyncResolver,
        scopeMapper,
        visibilityCacheTtl,
        asyncScheduler);
  }

  /**
   * Returns every spec {@linkplain #wrap(SyncToolSpecification) wrapped}, in order.
   *
   * @throws IllegalArgumentException as {@link #wrap(SyncToolSpecification)}
   */
  public List<SyncToolSpecification> wrapAll(SyncToolSpecification... specs) {
    return wrapAllSync(Arrays.asList(Objects.requireNonNull(specs, "specs")));
  }

  /**
   * Returns every spec {@linkplain #wrap(AsyncToolSpecification) wrapped}, in order.
   *
   * @throws IllegalArgumentException as {@link #wrap(SyncToolSpecification)}
   */
  public List<AsyncToolSpecification> wrapAll(AsyncToolSpecification... specs) {
    return wrapAllAsync(Arrays.asList(Objects.requireNonNull(specs, "specs")));
  }

  /**
   * Returns every spec {@linkplain #wrap(SyncToolSpecification) wrapped}, in order.
   *
   * @throws IllegalArgumentException as {@link #wrap(SyncToolSpecification)}
   */
  public List<SyncToolSpecification> wrapAllSync(List<SyncToolSpecification> specs) {
    return wrapEach(specs, this::wrap);
  }

  /**
   * Returns every spec {@linkplain #wrap(AsyncToolSpecification) wrapped}, in order.
   *
   * @throws IllegalArgumentException as {@link #wrap(SyncToolSpecification)}
   */
  public List<AsyncToolSpecification> wrapAllAsync(List<AsyncToolSpecification> specs) {
    return wrapEach(specs, this::wrap);
  }

  /**
   * Returns every stateless spec {@linkplain
   * #wrap(McpStatelessServerFeatures.SyncToolSpecification) wrapped}, in order.
   *
   * @throws IllegalArgumentException as {@link #wrap(SyncToolSpecification)}
   */
  public List<McpStatelessServerFeatures.SyncToolSpecification> wrapAllStatelessSync(
      List<McpStatelessServerFeatures.SyncToolSpecification> specs) {
    return wrapEach(specs, this::wrap);
  }

  /**
   * Returns every stateless spec {@linkplain
   * #wrap(McpStatelessServerFeatures.AsyncToolSpecification) wrapped}, in order.
   *
   * @throws IllegalArgumentException as {@link #wrap(SyncToolSpecification)}
   */
  public List<McpStatelessServerFeatures.AsyncToolSpecification> wrapAllStatelessAsync(
      List<McpStatelessServerFeatures.AsyncToolSpecification> specs) {
    return wrapEach(specs, this::wrap);
  }

  private static <T> List<T> wrapEach(List<T> specs, Function<T, T> wrapper) {
    Objects.requireNonNull(specs, "specs");
    List<T> out = new ArrayList<>(specs.size());
    for (T spec : specs) {
      out.add(wrapper.apply(spec));
    }
    return List.copyOf(out);
  }

  // ---- wrap-time checks -----------------------------------------------------------------------

  private GuardedCalls.Guarded prepare(Tool tool) {
    Objects.requireNonNull(tool, "spec.tool()");
    GuardedTool prepared = core.tool(tool.name(), declaredArguments(tool));
    if (userIdSource instanceof ArgumentUserIdSource a) {
      requireArgumentAllowed(tool, a.name());
    }
    return new GuardedCalls.Guarded(
        tool, bindings.getOrDefault(tool.name(), defaultBinding), prepared);
  }

  /** The top-level properties the tool's input schema declares (none when it has no schema). */
  private static Set<String> declaredArguments(Tool tool) {
    if (tool.inputSchema() != null
        && tool.inputSchema().get("properties") instanceof Map<?, ?> properties) {
      Set<String> names = new HashSet<>();
      for (Object key : properties.keySet()) {
        names.add(String.valueOf(key));
      }
      return names;
    }
    return Set.of();
  }

  private static void requireArgumentAllowed(Tool tool, String argument) {
    Map<String, Object> schema = tool.inputSchema();
    if (schema == null) {
      return;
    }
    boolean declared =
        schema.get("properties") instanceof Map<?, ?> properties
            && properties.containsKey(argument);
    if (!declared && Boolean.FALSE.equals(schema.get("additionalProperties"))) {
      throw new IllegalArgumentException(
          "expected the input schema of tool \""
              + tool.name()
              + "\" to declare the \""
              + argument
              + "\" argument the guard reads the user id from, found additionalProperties: false"
              + " without it; the MCP server would reject every call before the guard runs");
    }
  }

  /**
   * Returns the framework-neutral guard this one adapts: the same client, resolver, scopes,
   * resource bindings, extractors and listener, for in-process adapters that decide calls outside
   * an MCP server (the Spring AI starter's {@code GuardedToolCallback}). Its extractors see an
   * in-process call as a {@link ToolCall} with an empty transport context and no session; the user
   * id comes from the adapter, not from this guard's {@link UserIdSource}.
   */
  public ToolGuard core() {
    return core;
  }

  @Override
  public String toString() {
    return "AgentAuthToolGuard{client=" + client + ", userIdSource=" + userIdSource + "}";
  }

  /**
   * Builder of {@link AgentAuthToolGuard}. Required: {@link #client(AgentAuthClient)}, {@link
   * #userIdSource(UserIdSource)} (an explicit choice: there is no default), and one of {@link
   * #authorizationResolver(AuthorizationResolver)} or {@link
   * #asyncAuthorizationResolver(AsyncAuthorizationResolver)}. Not thread-safe.
   */
  public static final class Builder {
    private AgentAuthClient client;
    private UserIdSource userIdSource;
    private AuthorizationResolver resolver;
    private AsyncAuthorizationResolver asyncResolver;
    private Function<String, String> scopeMapper = Function.identity();
    private Function<ToolCall, String> resourceExtractor;
    private final Map<String, ResourceBinding> bindings = new HashMap<>();
    private boolean elicitation;
    private Duration confirmationTimeout = DEFAULT_CONFIRMATION_TIMEOUT;
    private Function<ToolCall, Map<String, Object>> contextExtractor;
    private Function<ToolCall, String> sessionIdExtractor;
    private Function<ToolCall, Long> estimatedCostExtractor;
    private DecisionListener listener;
    private Scheduler asyncScheduler = Schedulers.parallel();
    private LongSupplier nanoTime = System::nanoTime;
    private Duration visibilityCacheTtl = AgentAuthToolFilter.DEFAULT_CACHE_TTL;

    private Builder() {}

    /**
     * Sets the agentauth client that checks calls (required). Its check timeout and {@link
     * FallbackPolicy} apply to every guarded call.
     */
    public Builder client(AgentAuthClient client) {
      this.client = Objects.requireNonNull(client, "client");
      return this;
    }

    /**
     * Sets where the caller's user id comes from (required, no default): {@link
     * UserIdSource#transportContext(String)} (recommended: the authenticated transport) or {@link
     * UserIdSource#argument()} (the {@code user_id} tool argument, written by the model and so
     * caller-controlled). See {@link UserIdSource} for the trade-off.
     */
    public Builder userIdSource(UserIdSource source) {
      this.userIdSource = Objects.requireNonNull(source, "source");
      return this;
    }

    /**
     * Sets the function mapping (user, tool, arguments) to an authorization id; empty denies
     * locally. Replaces an async resolver set before. It must not block when async tools are
     * guarded.
     */
    public Builder authorizationResolver(AuthorizationResolver resolver) {
      this.resolver = Objects.requireNonNull(resolver, "resolver");
      this.asyncResolver = null;
      return this;
    }

    /**
     * Sets the non-blocking function mapping (user, tool, arguments) to an authorization id; empty
     * denies locally. Replaces a resolver set before.
     */
    public Builder asyncAuthorizationResolver(AsyncAuthorizationResolver resolver) {
      this.asyncResolver = Objects.requireNonNull(resolver, "resolver");
      this.resolver = null;
      return this;
    }

    /**
     * Sets how a tool name becomes the checked scope (default: the name itself), e.g. {@code name
     * -> "mcp." + name}. Applied once per tool when it is wrapped.
     */
    public Builder scopeMapper(Function<String, String> mapper) {
      this.scopeMapper = Objects.requireNonNull(mapper, "mapper");
      return this;
    }

    /**
     * Sets the function returning the check's {@code resource} (matched by {@code
     * resource_pattern}, blocked by tombstones) for every tool without its own {@linkplain
     * #resourceBinding(String, ResourceBinding) binding}: {@code
     * ResourceBinding.extractor(extractor)}. Returning {@code null} sends no resource, which widens
     * that call's approval to the whole scope. Without this and without a per-tool binding, a tool
     * gets {@link ResourceBinding#argumentsDigest()}. When it reads tool arguments (written by the
     * model), keep the tool's scope {@code fail_closed} in the client's {@link FallbackPolicy}.
     */
    public Builder resourceExtractor(Function<ToolCall, String> extractor) {
      this.resourceExtractor = Objects.requireNonNull(extractor, "extractor");
      return this;
    }

    /**
     * Sets what an approval of {@code toolName}'s calls covers: the {@code resource} of its checks
     * (see {@link ResourceBinding}), e.g. {@code resourceBinding("delete_note",
     * ResourceBinding.template("notes:{id}"))}. Replaces the {@linkplain
     * #resourceExtractor(Function) extractor} and the default {@link
     * ResourceBinding#argumentsDigest()} for that tool. A template is checked when the tool is
     * wrapped: each placeholder must be a top-level property of the tool's input schema.
     */
    public Builder resourceBinding(String toolName, ResourceBinding binding) {
      Objects.requireNonNull(toolName, "toolName");
      this.bindings.put(toolName, Objects.requireNonNull(binding, "binding"));
      return this;
    }

    /**
     * Sets whether a {@code confirm} decision asks the user in their MCP client (default {@code
     * false}): when the client declared the {@code elicitation} capability and the server keeps
     * sessions, the guard sends a form-mode {@code elicitation/create} in the same {@code
     * tools/call}, approves or declines the nonce from the answer ({@code via: mcp_elicitation}),
     * and on approval re-checks and runs the tool. Otherwise, and on cancel or timeout, the call
     * returns the {@code confirm} result. Approving needs a key of role {@code tool_server} (or
     * {@code app}, {@code full}); never give that role to a process whose outbound calls a model
     * can steer.
     */
    public Builder elicitation(boolean enabled) {
      this.elicitation = enabled;
      return this;
    }

    /**
     * Sets how long the guard waits for the user's answer to an elicitation (default 2 minutes);
     * after that the call returns the {@code confirm} result and the nonce stays unresolved.
     *
     * @throws IllegalArgumentException if {@code timeout} is zero or negative
     */
    public Builder confirmationTimeout(Duration timeout) {
      Objects.requireNonNull(timeout, "timeout");
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("expected a confirmation timeout > 0, found " + timeout);
      }
      this.confirmationTimeout = timeout;
      return this;
    }

    /**
     * Sets the function returning the check's {@code context} object (recorded in the receipt;
     * {@code initiated_by} is matched by {@code allowed_initiators}), or {@code null} for none.
     * Default: none.
     */
    public Builder contextExtractor(Function<ToolCall, Map<String, Object>> extractor) {
      this.contextExtractor = Objects.requireNonNull(extractor, "extractor");
      return this;
    }

    /**
     * Sets the function returning the check's {@code session_id} (recorded in the receipt), or
     * {@code null} for none; {@code ToolCall::sessionId} records the MCP session. Default: none.
     */
    public Builder sessionIdExtractor(Function<ToolCall, String> extractor) {
      this.sessionIdExtractor = Objects.requireNonNull(extractor, "extractor");
      return this;
    }

    /**
     * Sets the function returning the call's {@code estimated_cost_micros}, required by budgeted
     * authorizations, or {@code null} for none. Default: none.
     */
    public Builder estimatedCostExtractor(Function<ToolCall, Long> extractor) {
      this.estimatedCostExtractor = Objects.requireNonNull(extractor, "extractor");
      return this;
    }

    /** Sets the listener told of every decision (default: none). */
    public Builder listener(DecisionListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /**
     * Sets where guarded async tools are subscribed after their check completes (default {@link
     * Schedulers#parallel()}), so that a tool never runs on, and holds, an OkHttp dispatcher
     * thread. {@link Schedulers#immediate()} saves a thread hop when every tool is non-blocking and
     * quick to subscribe.
     */
    public Builder asyncScheduler(Scheduler scheduler) {
      this.asyncScheduler = Objects.requireNonNull(scheduler, "scheduler");
      return this;
    }

    /**
     * Sets how long an authorization looked up by the {@linkplain #toolFilter() tools/list filter}
     * decides visibility (default 10 s; {@link Duration#ZERO} looks it up on every listing).
     * Revocation still takes effect at once for calls, which are checked every time.
     *
     * @throws IllegalArgumentException if {@code ttl} is negative
     */
    public Builder visibilityCacheTtl(Duration ttl) {
      Objects.requireNonNull(ttl, "ttl");
      if (ttl.isNegative()) {
        throw new IllegalArgumentException("expected a visibility cache TTL >= 0, found " + ttl);
      }
      this.visibilityCacheTtl = ttl;
      return this;
    }

    /** Injects the nanosecond clock that measures decision latency (tests). */
    Builder nanoTime(LongSupplier nanoTime) {
      this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
      return this;
    }

    /**
     * Returns the guard.
     *
     * @throws IllegalStateException if the client, the user id source or a resolver is missing
     */
    public AgentAuthToolGuard build() {
      if (client == null) {
        throw new IllegalStateException("expected an AgentAuthClient: call client(...)");
      }
      if (userIdSource == null) {
        throw new IllegalStateException(
            "expected an explicit user id source: userIdSource(UserIdSource.transportContext(...))"
                + " (recommended: the authenticated transport) or"
                + " userIdSource(UserIdSource.argument()) (the user_id tool argument, which the"
                + " model writes)");
      }
      if (resolver == null && asyncResolver == null) {
        throw new IllegalStateException(
            "expected an authorization resolver: call authorizationResolver(...) or"
                + " asyncAuthorizationResolver(...)");
      }
      return new AgentAuthToolGuard(this);
    }
  }
}
