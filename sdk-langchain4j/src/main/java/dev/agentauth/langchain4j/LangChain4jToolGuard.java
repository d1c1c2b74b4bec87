package dev.agentauth.langchain4j;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.FallbackPolicy;
import dev.agentauth.guard.AsyncAuthorizationResolver;
import dev.agentauth.guard.AuthorizationResolver;
import dev.agentauth.guard.DecisionListener;
import dev.agentauth.guard.GuardCall;
import dev.agentauth.guard.GuardOutcome;
import dev.agentauth.guard.GuardedTool;
import dev.agentauth.guard.ResourceBinding;
import dev.agentauth.guard.ToolGuard;
import dev.agentauth.model.Decision;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.agent.tool.ToolSpecifications;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.service.tool.DefaultToolExecutor;
import dev.langchain4j.service.tool.ToolExecutionResult;
import dev.langchain4j.service.tool.ToolExecutor;
import dev.langchain4j.service.tool.ToolProvider;
import dev.langchain4j.service.tool.ToolProviderResult;
import java.lang.reflect.Method;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Guards the tools of LangChain4j AI services with agentauth: before a tool runs, its call is
 * checked ({@code POST /v1/check}, the tool name as the scope) for the user of the invocation.
 * LangChain4j's {@code beforeToolExecution} callback cannot veto a call, so the guard decorates the
 * tool executors:
 *
 * <pre>{@code
 * LangChain4jToolGuard guard = LangChain4jToolGuard.builder()
 *     .client(agentAuthClient)
 *     .userIdSource(UserIdSource.invocationParameter("user_id"))  // set by the app, not the model
 *     .authorizationResolver((userId, tool, args) -> grants.find(userId, "support-bot"))
 *     .resourceBinding("delete_note", ResourceBinding.template("notes:{id}"))
 *     .approvalListener(r -> inbox.ask(r.userId(), r.toolName(), r.confirmNonce()))
 *     .build();
 *
 * Assistant assistant = AiServices.builder(Assistant.class)
 *     .chatModel(model)
 *     .tools(guard.tools(new NoteTools()))              // @Tool objects, guarded
 *     .toolProvider(guard.guard(mcpToolProvider))       // or any ToolProvider, guarded
 *     .build();
 * }</pre>
 *
 * <p>Four ways in: {@link #tools(Object...)} turns {@code @Tool} objects into a guarded {@code
 * Map<ToolSpecification, ToolExecutor>} for {@code AiServices.tools(Map)}; {@link #guard(Map)} and
 * {@link #guard(ToolSpecification, ToolExecutor)} guard executors you built; {@link
 * #guard(ToolProvider)} guards every tool a provider gives; and {@link #mcpToolWrapper()} is the
 * {@code McpToolProvider.builder().toolWrapper(...)} hook, so that tools of remote MCP servers are
 * checked by the agent too (the name checked is the one the model sees, after any name mapper).
 *
 * <p>For each call the framework-neutral {@link ToolGuard} decides, exactly as for the MCP server
 * guard and the Spring AI starter: user (from the {@link UserIdSource}; none denies locally with
 * {@code missing_user_id}), authorization (the resolver; none denies locally), resource (the tool's
 * {@link ResourceBinding}, by default {@code <tool>:} + a digest of the arguments, so that one
 * approval covers one action), one check, and the listener.
 *
 * <p><b>Results.</b> {@code allow} runs the tool and returns its result. {@code deny}, {@code
 * confirm} and {@code escalate}, a local denial and a fail-closed fallback return an error result
 * ({@link ToolExecutionResult#isError()}) whose text is the decision object as JSON, the same
 * fields as the MCP guard's error results: {@code decision}, {@code reason}; {@code confirm_nonce},
 * {@code confirm_expires_at}, {@code confirm_prompt_hint} for a confirm; {@code escalation_id},
 * {@code escalation_to}, {@code escalation_expires_at} for an escalation; {@code receipt_id};
 * {@code local}, or {@code fallback} and {@code fallback_mode}; and a one-sentence {@code message}
 * telling the model who must act and whether calling again helps. The model reads it and the
 * conversation goes on. The {@link ApprovalListener} hears of each confirm and escalate, to route
 * it to the user or the approver; once approved, the model's next call with the same arguments
 * runs, and a call with other arguments needs its own approval.
 *
 * <p><b>When the service cannot answer</b>, the client's {@link FallbackPolicy} decides per scope
 * ({@code fail_closed} by default: the tool does not run, the result carries {@code "fallback":
 * true}). A client with fallback disabled throws, and so does a 400; LangChain4j then hands the
 * exception to the AI service's tool execution error handler. Keep {@code fail_open} away from
 * tools whose resource or context comes from arguments.
 *
 * <p>Immutable and thread-safe. Tool calls run on LangChain4j's threads; the check blocks that
 * thread (LangChain4j tool executors are synchronous).
 */
public final class LangChain4jToolGuard {
  private static final Logger log = LoggerFactory.getLogger(LangChain4jToolGuard.class);
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final TypeReference<Map<String, Object>> OBJECT = new TypeReference<>() {};

  private final ToolGuard core;
  private final UserIdSource userIdSource;
  private final ApprovalListener approvalListener;
  private final Map<String, Prepared> byName = new ConcurrentHashMap<>();

  /** A tool prepared by the core; {@code null} for executors that learn their tool per call. */
  record Prepared(GuardedTool tool) {}

  private LangChain4jToolGuard(Builder b) {
    ToolGuard.Builder core =
        ToolGuard.builder(b.client)
            .scopeMapper(b.scopeMapper)
            .loggerName(LangChain4jToolGuard.class.getName());
    if (b.defaultBinding != null) {
      core.defaultResourceBinding(b.defaultBinding);
    }
    b.bindings.forEach(core::resourceBinding);
    if (b.asyncResolver != null) {
      core.asyncAuthorizationResolver(b.asyncResolver);
    } else {
      core.authorizationResolver(b.resolver);
    }
    if (b.contextExtractor != null) {
      Function<LangChain4jToolCall, Map<String, Object>> f = b.contextExtractor;
      core.contextExtractor(call -> f.apply(callOf(call)));
    }
    if (b.sessionIdExtractor != null) {
      Function<LangChain4jToolCall, String> f = b.sessionIdExtractor;
      core.sessionIdExtractor(call -> f.apply(callOf(call)));
    }
    if (b.estimatedCostExtractor != null) {
      Function<LangChain4jToolCall, Long> f = b.estimatedCostExtractor;
      core.estimatedCostExtractor(call -> f.apply(callOf(call)));
    }
    if (b.listener != null) {
      core.listener(b.listener);
    }
    this.core = core.build();
    this.userIdSource = b.userIdSource;
    this.approvalListener = b.approvalListener;
  }

  /** Returns a builder; the client, the user id source and a resolver are required. */
  public static Builder builder() {
    return new Builder();
  }

  /** Returns the framework-neutral guard this one adapts. */
  public ToolGuard core() {
    return core;
  }

  /**
   * Returns {@code executor} guarded as the tool {@code specification} describes.
   *
   * @throws IllegalArgumentException if the tool's scope (its name, after the scope mapper) is not
   *     a valid scope name, or its resource template names an argument the specification does not
   *     declare
   */
  public GuardedToolExecutor guard(ToolSpecification specification, ToolExecutor executor) {
    Objects.requireNonNull(specification, "specification");
    Objects.requireNonNull(executor, "executor");
    if (executor instanceof GuardedToolExecutor g) {
      return g;
    }
    return new GuardedToolExecutor(this, executor, prepare(specification));
  }

  /**
   * Returns every tool of {@code tools} with its executor guarded, in the same order, for {@code
   * AiServices.builder(...).tools(Map)}.
   *
   * @throws IllegalArgumentException as {@link #guard(ToolSpecification, ToolExecutor)}
   */
  public Map<ToolSpecification, ToolExecutor> guard(Map<ToolSpecification, ToolExecutor> tools) {
    Objects.requireNonNull(tools, "tools");
    Map<ToolSpecification, ToolExecutor> out = new LinkedHashMap<>();
    tools.forEach((spec, executor) -> out.put(spec, guard(spec, executor)));
    return out;
  }

  /**
   * Returns the {@code @Tool} methods of {@code objectsWithTools} as guarded executors, for {@code
   * AiServices.builder(...).tools(Map)}: each method's specification as LangChain4j derives it, and
   * an executor that invokes it as an AI service would (arguments converted, {@code
   * InvocationParameters} and {@code @ToolMemoryId} parameters filled).
   *
   * @throws IllegalArgumentException if an object has no {@code @Tool} method, two tools share a
   *     name, or as {@link #guard(ToolSpecification, ToolExecutor)}
   */
  public Map<ToolSpecification, ToolExecutor> tools(Object... objectsWithTools) {
    Objects.requireNonNull(objectsWithTools, "objectsWithTools");
    Map<ToolSpecification, ToolExecutor> out = new LinkedHashMap<>();
    Set<String> names = new java.util.HashSet<>();
    for (Object object : objectsWithTools) {
      Objects.requireNonNull(object, "objectsWithTools[i]");
      boolean found = false;
      for (Method method : object.getClass().getDeclaredMethods()) {
        if (!method.isAnnotationPresent(Tool.class)) {
          continue;
        }
        found = true;
        ToolSpecification spec = ToolSpecifications.toolSpecificationFrom(method);
        if (!names.add(spec.name())) {
          throw new IllegalArgumentException(
              "expected tool names to be unique, found \"" + spec.name() + "\" twice");
        }
        ToolExecutor executor =
            DefaultToolExecutor.builder()
                .object(object)
                .originalMethod(method)
                .methodToInvoke(method)
                .wrapToolArgumentsExceptions(true)
                .propagateToolExecutionExceptions(true)
                .build();
        out.put(spec, guard(spec, executor));
      }
      if (!found) {
        throw new IllegalArgumentException(
            "expected an object with @Tool methods, found "
                + object.getClass().getName()
                + " without any");
      }
    }
    return out;
  }

  /**
   * Returns a provider of {@code provider}'s tools with every executor guarded, for {@code
   * AiServices.builder(...).toolProvider(...)}; tools that return immediately still do.
   */
  public ToolProvider guard(ToolProvider provider) {
    Objects.requireNonNull(provider, "provider");
    return request -> {
      ToolProviderResult result = provider.provideTools(request);
      if (result == null) {
        return null;
      }
      return ToolProviderResult.builder()
          .addAll(guard(result.tools()))
          .immediateReturnToolNames(result.immediateReturnToolNames())
          .build();
    };
  }

  /**
   * Returns the hook of {@code McpToolProvider.builder().toolWrapper(...)}: each MCP client tool's
   * executor, guarded. The wrapper does not see the tool's specification, so each tool is prepared
   * at its first call (its scope and binding are checked then) under the name the model used.
   */
  public Function<ToolExecutor, ToolExecutor> mcpToolWrapper() {
    return executor ->
        executor instanceof GuardedToolExecutor g
            ? g
            : new GuardedToolExecutor(this, executor, null);
  }

  private Prepared prepare(ToolSpecification spec) {
    JsonObjectSchema parameters = spec.parameters();
    Set<String> declared =
        parameters == null || parameters.properties() == null
            ? Set.of()
            : parameters.properties().keySet();
    return new Prepared(core.tool(spec.name(), declared));
  }

  /** The decision, then the delegate or the refusal. */
  ToolExecutionResult execute(
      Prepared prepared,
      ToolExecutor delegate,
      ToolExecutionRequest request,
      InvocationContext context) {
    Objects.requireNonNull(request, "request");
    GuardedTool tool =
        prepared != null
            ? prepared.tool()
            : byName
                .computeIfAbsent(request.name(), name -> new Prepared(core.tool(name, null)))
                .tool();
    LangChain4jToolCall call =
        new LangChain4jToolCall(request, arguments(request.arguments()), context);
    String userId = userIdSource.userId(call);
    GuardOutcome o = core.decide(tool, userId, new GuardCall(tool.name(), call.arguments(), call));
    if (o.allowed()) {
      return delegate.executeWithContext(request, context);
    }
    if (approvalListener != null
        && o.check() != null
        && (Decision.CONFIRM.equals(o.check().decision())
            || Decision.ESCALATE.equals(o.check().decision()))) {
      try {
        approvalListener.approvalNeeded(
            new ApprovalRequest(tool.name(), userId, o.check().decision(), o.body(), call));
      } catch (RuntimeException e) {
        log.warn(
            "agentauth approval listener failed for tool {} ({}); the model gets the result as"
                + " decided",
            tool.name(),
            o.check().decision(),
            e);
      }
    }
    return ToolExecutionResult.builder()
        .isError(true)
        .result(o.body())
        .resultText(o.text())
        .build();
  }

  private static LangChain4jToolCall callOf(GuardCall call) {
    return (LangChain4jToolCall) call.source();
  }

  private static Map<String, Object> arguments(String json) {
    if (json == null || json.isBlank()) {
      return Map.of();
    }
    try {
      Map<String, Object> parsed = MAPPER.readValue(json, OBJECT);
      return parsed == null ? Map.of() : parsed;
    } catch (JsonProcessingException e) {
      // Not a JSON object: the tool decides what to make of it; bindings see no arguments.
      return Map.of();
    }
  }

  @Override
  public String toString() {
    return "LangChain4jToolGuard{" + core + "}";
  }

  /**
   * Builder of {@link LangChain4jToolGuard}. Required: {@link #client(AgentAuthClient)}, {@link
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
    private ResourceBinding defaultBinding;
    private final Map<String, ResourceBinding> bindings = new LinkedHashMap<>();
    private Function<LangChain4jToolCall, Map<String, Object>> contextExtractor;
    private Function<LangChain4jToolCall, String> sessionIdExtractor;
    private Function<LangChain4jToolCall, Long> estimatedCostExtractor;
    private DecisionListener listener;
    private ApprovalListener approvalListener;

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
     * Sets where the caller's user id comes from (required, no default); see {@link UserIdSource}.
     */
    public Builder userIdSource(UserIdSource source) {
      this.userIdSource = Objects.requireNonNull(source, "source");
      return this;
    }

    /**
     * Sets the function mapping (user, tool, arguments) to an authorization id; empty denies
     * locally. Replaces an async resolver set before.
     */
    public Builder authorizationResolver(AuthorizationResolver resolver) {
      this.resolver = Objects.requireNonNull(resolver, "resolver");
      this.asyncResolver = null;
      return this;
    }

    /**
     * Sets the non-blocking function mapping (user, tool, arguments) to an authorization id (the
     * guard waits for it: tool executors are synchronous); empty denies locally. Replaces a
     * resolver set before.
     */
    public Builder asyncAuthorizationResolver(AsyncAuthorizationResolver resolver) {
      this.asyncResolver = Objects.requireNonNull(resolver, "resolver");
      this.resolver = null;
      return this;
    }

    /** Sets how a tool name becomes the checked scope (default: the name itself). */
    public Builder scopeMapper(Function<String, String> mapper) {
      this.scopeMapper = Objects.requireNonNull(mapper, "mapper");
      return this;
    }

    /**
     * Sets the binding of every tool without one of its own (default {@link
     * ResourceBinding#argumentsDigest()}: an approval covers identical calls only).
     */
    public Builder defaultResourceBinding(ResourceBinding binding) {
      this.defaultBinding = Objects.requireNonNull(binding, "binding");
      return this;
    }

    /**
     * Sets what an approval of {@code toolName}'s calls covers, e.g. {@code
     * resourceBinding("delete_note", ResourceBinding.template("notes:{id}"))}. A template's
     * placeholders must be parameters of the tool.
     */
    public Builder resourceBinding(String toolName, ResourceBinding binding) {
      Objects.requireNonNull(toolName, "toolName");
      this.bindings.put(toolName, Objects.requireNonNull(binding, "binding"));
      return this;
    }

    /**
     * Sets the function returning the check's {@code context} object (recorded in the receipt), or
     * {@code null} for none.
     */
    public Builder contextExtractor(Function<LangChain4jToolCall, Map<String, Object>> extractor) {
      this.contextExtractor = Objects.requireNonNull(extractor, "extractor");
      return this;
    }

    /** Sets the function returning the check's {@code session_id}, or {@code null} for none. */
    public Builder sessionIdExtractor(Function<LangChain4jToolCall, String> extractor) {
      this.sessionIdExtractor = Objects.requireNonNull(extractor, "extractor");
      return this;
    }

    /** Sets the function returning the call's {@code estimated_cost_micros}, or {@code null}. */
    public Builder estimatedCostExtractor(Function<LangChain4jToolCall, Long> extractor) {
      this.estimatedCostExtractor = Objects.requireNonNull(extractor, "extractor");
      return this;
    }

    /** Sets the listener told of every decision (default: none). */
    public Builder listener(DecisionListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /** Sets the listener told of every confirm and escalate (default: none). */
    public Builder approvalListener(ApprovalListener listener) {
      this.approvalListener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /**
     * Returns the guard.
     *
     * @throws IllegalStateException if the client, the user id source or a resolver is missing
     */
    public LangChain4jToolGuard build() {
      if (client == null) {
        throw new IllegalStateException("expected an AgentAuthClient: call client(...)");
      }
      if (userIdSource == null) {
        throw new IllegalStateException(
            "expected an explicit user id source:"
                + " userIdSource(UserIdSource.invocationParameter(...)) or"
                + " userIdSource(UserIdSource.memoryId()) (set by the application), or"
                + " userIdSource(UserIdSource.argument(...)) (written by the model)");
      }
      if (resolver == null && asyncResolver == null) {
        throw new IllegalStateException(
            "expected an authorization resolver: call authorizationResolver(...) or"
                + " asyncAuthorizationResolver(...)");
      }
      return new LangChain4jToolGuard(this);
    }
  }
}
