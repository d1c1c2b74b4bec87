package dev.agentauth.guard;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.ApiException;
import dev.agentauth.client.AuthenticationException;
import dev.agentauth.client.CheckParams;
import dev.agentauth.client.FallbackPolicy;
import dev.agentauth.client.ForbiddenException;
import dev.agentauth.model.CheckResponse;
import dev.agentauth.model.CheckResult;
import dev.agentauth.model.Decision;
import dev.agentauth.model.Reason;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The framework-neutral guard of tool calls: one decision sequence, {@code (user, tool, arguments,
 * resource binding, context) -> decision}, shared by every adapter (the MCP server guard, the
 * Spring AI starter's {@code GuardedToolCallback}, the LangChain4j decorators). An adapter finds
 * the user (from what its framework trusts, never from the model unless chosen), prepares each tool
 * once with {@link #tool(String, Set)}, and for each call asks {@link #decide(GuardedTool, String,
 * GuardCall)} (blocking) or {@link #decideAsync(GuardedTool, String, GuardCall, Executor)} (never
 * blocking); it runs the tool when the outcome is {@linkplain GuardOutcome#allowed() allowed}, else
 * hands the model the outcome's {@linkplain GuardOutcome#body() decision object}.
 *
 * <pre>{@code
 * ToolGuard guard = ToolGuard.builder(client)
 *     .authorizationResolver((userId, tool, args) -> grants.find(userId))
 *     .resourceBinding("delete_note", ResourceBinding.template("notes:{id}"))
 *     .build();
 * GuardedTool deleteNote = guard.tool("delete_note", Set.of("id"));
 * GuardOutcome o = guard.decide(deleteNote, "u_123", new GuardCall("delete_note", args, null));
 * String result = o.allowed() ? notes.delete((String) args.get("id")) : o.text();
 * }</pre>
 *
 * <p>The sequence of one call:
 *
 * <ol>
 *   <li>No user: denied locally, {@code missing_user_id}.
 *   <li>The resolver maps user, tool and arguments to an authorization id; empty denies locally,
 *       {@code authorization_not_found}.
 *   <li>The tool's {@link ResourceBinding} names the call (by default {@code <tool>:} + a digest of
 *       the arguments), so that one approval covers one action; an argument a template cannot read
 *       denies locally, {@value ResourceBindingException#REASON}.
 *   <li>One check ({@code POST /v1/check}) for the tool's scope, with that resource and the
 *       configured {@code context}, {@code session_id} and cost estimate.
 *   <li>{@code allow} runs the tool; {@code deny}, {@code confirm} and {@code escalate} return the
 *       decision object ({@link GuardResults}). When the service cannot answer, the client's {@link
 *       FallbackPolicy} decides and the object carries {@code fallback} and {@code fallback_mode}.
 *       A 401 or 403 (the guard's own key refused) is a denial with reason {@code
 *       service_unavailable} and one WARN line; a client without fallback, and a 400, throw.
 * </ol>
 *
 * <p>The listener hears of every decision. Sync and async run the same sequence: the blocking form
 * runs it on the calling thread, the async form checks with the client's async API and continues on
 * the given executor, so that a tool never runs on an HTTP dispatcher thread.
 *
 * <p>Immutable and thread-safe.
 */
public final class ToolGuard {

  // Scope names (decisions §2): 1-200 of A-Z a-z 0-9 . _ - : /, not starting or ending with '.'.
  private static final Pattern SCOPE_NAME = Pattern.compile("[A-Za-z0-9._\\-:/]{1,200}");

  private final AgentAuthClient client;
  private final AuthorizationResolver resolver;
  private final AsyncAuthorizationResolver asyncResolver;
  private final Function<String, String> scopeMapper;
  private final ResourceBinding defaultBinding;
  private final Map<String, ResourceBinding> bindings;
  private final Function<GuardCall, Map<String, Object>> contextExtractor;
  private final Function<GuardCall, String> sessionIdExtractor;
  private final Function<GuardCall, Long> estimatedCostExtractor;
  private final DecisionListener listener;
  private final LongSupplier nanoTime;
  private final Logger log;

  private ToolGuard(Builder b) {
    this.client = b.client;
    this.resolver = b.resolver;
    this.asyncResolver = b.asyncResolver;
    this.scopeMapper = b.scopeMapper;
    this.defaultBinding = b.defaultBinding;
    this.bindings = Map.copyOf(b.bindings);
    this.contextExtractor = b.contextExtractor;
    this.sessionIdExtractor = b.sessionIdExtractor;
    this.estimatedCostExtractor = b.estimatedCostExtractor;
    this.listener = b.listener;
    this.nanoTime = b.nanoTime;
    this.log = LoggerFactory.getLogger(b.loggerName);
  }

  /**
   * Returns a builder; {@code client} checks the calls, and a resolver is required.
   *
   * @param client the agentauth client: its check timeout and {@link FallbackPolicy} apply to every
   *     guarded call
   */
  public static Builder builder(AgentAuthClient client) {
    return new Builder(Objects.requireNonNull(client, "client"));
  }

  /** Returns the client that checks the calls. */
  public AgentAuthClient client() {
    return client;
  }

  // ---- preparing a tool -----------------------------------------------------------------------

  /**
   * Prepares {@code name} for guarded calls: its scope (the scope mapper's name for it) and its
   * resource binding (its own, else the default).
   *
   * @param declaredArguments the top-level arguments the tool's input schema declares, so that a
   *     template's placeholders are checked now rather than on every call; {@code null} when the
   *     schema is not known yet (the template is then only checked per call)
   * @throws IllegalArgumentException if the scope is not a valid scope name (1–200 characters from
   *     {@code A-Z a-z 0-9 . _ - : /}, not starting or ending with {@code .}), a template names an
   *     argument the schema does not declare, or the tool name is too long for the default binding
   */
  public GuardedTool tool(String name, Set<String> declaredArguments) {
    Objects.requireNonNull(name, "name");
    String scope = scopeMapper.apply(name);
    if (scope == null
        || !SCOPE_NAME.matcher(scope).matches()
        || scope.startsWith(".")
        || scope.endsWith(".")) {
      throw new IllegalArgumentException(
          "expected tool \""
              + name
              + "\" to map to a scope name of 1-200 characters from A-Z a-z 0-9 . _ - : /, not"
              + " starting or ending with '.', found: "
              + (scope == null ? "null" : "\"" + scope + "\""));
    }
    ResourceBinding binding = bindingOf(name);
    if (declaredArguments != null) {
      for (String placeholder : binding.placeholders()) {
        if (!declaredArguments.contains(placeholder)) {
          throw new IllegalArgumentException(
              "expected the input schema of tool \""
                  + name
                  + "\" to declare the top-level property \""
                  + placeholder
                  + "\" that its resource binding "
                  + binding
                  + " reads, found "
                  + (declaredArguments.isEmpty()
                      ? "no properties"
                      : "properties " + new TreeSet<>(declaredArguments)));
        }
      }
    }
    if (binding == ResourceBinding.argumentsDigest()
        && name.length() > ResourceBinding.MAX_DIGEST_TOOL_NAME) {
      throw new IllegalArgumentException(
          "expected a tool name of at most "
              + ResourceBinding.MAX_DIGEST_TOOL_NAME
              + " characters for the default resource binding (<tool>: + 43 characters, at most"
              + " 256), found "
              + name.length()
              + " for tool \""
              + name
              + "\"; give it a resourceBinding(...) of its own");
    }
    return new GuardedTool(name, scope, binding);
  }

  /** Returns the binding of {@code toolName}'s calls: its own, else the default. */
  public ResourceBinding bindingOf(String toolName) {
    return bindings.getOrDefault(toolName, defaultBinding);
  }

  // ---- deciding -------------------------------------------------------------------------------

  /**
   * Decides one call on the calling thread (blocking on the check).
   *
   * @param tool the prepared tool
   * @param userId the caller as the adapter identified them, or {@code null} (or blank) for none,
   *     which denies locally with {@code missing_user_id}
   * @param call the call
   * @throws RuntimeException what the resolver throws, and the client's errors other than 401/403
   *     (a 400; any error when the client's fallback is disabled)
   */
  public GuardOutcome decide(GuardedTool tool, String userId, GuardCall call) {
    return join(run(tool, userId, call, new Blocking()));
  }

  /**
   * Decides one call without blocking: the check uses the client's async API, and every stage after
   * it runs on {@code continueOn}.
   *
   * @return a stage completing with the outcome, or failing with what {@link #decide(GuardedTool,
   *     String, GuardCall)} would throw
   */
  public CompletableFuture<GuardOutcome> decideAsync(
      GuardedTool tool, String userId, GuardCall call, Executor continueOn) {
    Objects.requireNonNull(continueOn, "continueOn");
    return run(tool, userId, call, new NonBlocking(continueOn));
  }

  /**
   * Checks a {@linkplain GuardOutcome#confirmable() confirm} outcome's call again, with the same
   * parameters, without blocking: after the user approved its nonce, the re-check decides whether
   * the tool runs. The listener hears of the new decision.
   *
   * @throws IllegalArgumentException if {@code confirm} is not {@linkplain
   *     GuardOutcome#confirmable() confirmable}
   */
  public CompletableFuture<GuardOutcome> recheckAsync(GuardOutcome confirm, Executor continueOn) {
    requireConfirmable(confirm);
    Objects.requireNonNull(continueOn, "continueOn");
    return check(confirm.pending(), new NonBlocking(continueOn));
  }

  /**
   * Tells the listener that the user declined a {@linkplain GuardOutcome#confirmable() confirm}
   * outcome's call (reason {@code confirmation_declined}), and returns the decision object for the
   * model.
   *
   * @throws IllegalArgumentException if {@code confirm} is not {@linkplain
   *     GuardOutcome#confirmable() confirmable}
   */
  public Map<String, Object> declined(GuardOutcome confirm) {
    requireConfirmable(confirm);
    GuardOutcome.Pending p = confirm.pending();
    notifyListener(
        new GuardDecision(
            p.tool().name(),
            p.tool().scope(),
            p.userId(),
            p.params().authorizationId(),
            Decision.DENY,
            GuardResults.CONFIRMATION_DECLINED,
            elapsed(p.start()),
            null,
            false,
            null));
    return GuardResults.declinedBody(p.tool().name(), confirm.check());
  }

  private static void requireConfirmable(GuardOutcome confirm) {
    Objects.requireNonNull(confirm, "confirm");
    if (!confirm.confirmable()) {
      throw new IllegalArgumentException(
          "expected a confirm outcome with a nonce, found " + confirm);
    }
  }

  /** How the sequence waits: on the calling thread, or not at all. */
  private interface Mode {
    CompletionStage<Optional<String>> resolve(String userId, GuardCall call);

    CompletableFuture<CheckResponse> check(CheckParams params);
  }

  /** Every stage completes before it returns: the sequence runs on the calling thread. */
  private final class Blocking implements Mode {
    @Override
    public CompletionStage<Optional<String>> resolve(String userId, GuardCall call) {
      return CompletableFuture.completedFuture(
          asyncResolver != null
              ? join(
                  Objects.requireNonNull(
                      asyncResolver.resolve(userId, call.toolName(), call.arguments()),
                      "the async authorization resolver returned a null stage"))
              : resolver.resolve(userId, call.toolName(), call.arguments()));
    }

    @Override
    public CompletableFuture<CheckResponse> check(CheckParams params) {
      try {
        return CompletableFuture.completedFuture(client.check(params));
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
    }
  }

  /** The client's async API; what follows a check runs on the executor. */
  private final class NonBlocking implements Mode {
    private final Executor continueOn;

    NonBlocking(Executor continueOn) {
      this.continueOn = continueOn;
    }

    @Override
    public CompletionStage<Optional<String>> resolve(String userId, GuardCall call) {
      return asyncResolver != null
          ? Objects.requireNonNull(
              asyncResolver.resolve(userId, call.toolName(), call.arguments()),
              "the async authorization resolver returned a null stage")
          : CompletableFuture.completedFuture(
              resolver.resolve(userId, call.toolName(), call.arguments()));
    }

    @Override
    public CompletableFuture<CheckResponse> check(CheckParams params) {
      CompletableFuture<CheckResponse> out = new CompletableFuture<>();
      client
          .async()
          .check(params)
          .whenComplete(
              (response, error) -> {
                Runnable complete =
                    () -> {
                      if (error != null) {
                        out.completeExceptionally(unwrap(error));
                      } else {
                        out.complete(response);
                      }
                    };
                try {
                  continueOn.execute(complete);
                } catch (RejectedExecutionException e) {
                  complete.run();
                }
              });
      return out;
    }
  }

  /** The sequence, once for both modes. */
  private CompletableFuture<GuardOutcome> run(
      GuardedTool tool, String userId, GuardCall call, Mode mode) {
    Objects.requireNonNull(tool, "tool");
    Objects.requireNonNull(call, "call");
    long start = nanoTime.getAsLong();
    try {
      if (userId == null || userId.isBlank()) {
        return CompletableFuture.completedFuture(
            localDenial(tool, null, Reason.MISSING_USER_ID, null, start));
      }
      return mode.resolve(userId, call)
          .toCompletableFuture()
          .thenCompose(
              found -> {
                Optional<String> id = clean(found);
                if (id.isEmpty()) {
                  return CompletableFuture.completedFuture(
                      localDenial(tool, userId, Reason.AUTHORIZATION_NOT_FOUND, null, start));
                }
                String resource;
                try {
                  resource = tool.binding().resourceFor(call);
                } catch (ResourceBindingException e) {
                  return CompletableFuture.completedFuture(
                      localDenial(tool, userId, ResourceBindingException.REASON_VALUE, e, start));
                }
                GuardOutcome.Pending p =
                    new GuardOutcome.Pending(
                        tool, call, userId, checkParams(call, tool, id.get(), resource), start);
                return check(p, mode);
              });
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private CompletableFuture<GuardOutcome> check(GuardOutcome.Pending p, Mode mode) {
    return mode.check(p.params())
        .handle(
            (response, error) -> {
              if (error != null) {
                Throwable cause = unwrap(error);
                if (cause instanceof AuthenticationException
                    || cause instanceof ForbiddenException) {
                  return refused(p, (ApiException) cause);
                }
                throw cause instanceof CompletionException c ? c : new CompletionException(cause);
              }
              CheckResult r = resultFor(response, p.tool().scope());
              GuardDecision d =
                  new GuardDecision(
                      p.tool().name(),
                      p.tool().scope(),
                      p.userId(),
                      p.params().authorizationId(),
                      r.decision(),
                      r.reason(),
                      elapsed(p.start()),
                      r.receipt() == null ? null : r.receipt().receiptId(),
                      false,
                      Boolean.TRUE.equals(r.fallback()) ? r.fallbackMode() : null);
              notifyListener(d);
              return new GuardOutcome(
                  d, r, r.isAllowed() ? null : GuardResults.body(p.tool().name(), r), p);
            });
  }

  private GuardOutcome refused(GuardOutcome.Pending p, ApiException e) {
    log.warn(
        "agentauth refused the guard's API key ({} {}) checking tool {}; the call is denied with"
            + " reason service_unavailable until the key is replaced (request id {})",
        e.statusCode(),
        e.code(),
        p.tool().name(),
        e.requestId());
    GuardDecision d =
        new GuardDecision(
            p.tool().name(),
            p.tool().scope(),
            p.userId(),
            p.params().authorizationId(),
            Decision.DENY,
            GuardResults.SERVICE_UNAVAILABLE,
            elapsed(p.start()),
            null,
            false,
            null);
    notifyListener(d);
    return new GuardOutcome(d, null, GuardResults.serviceUnavailableBody(p.tool().name()), null);
  }

  private GuardOutcome localDenial(
      GuardedTool tool, String userId, Reason reason, ResourceBindingException cause, long start) {
    GuardDecision d =
        new GuardDecision(
            tool.name(),
            tool.scope(),
            userId,
            null,
            Decision.DENY,
            reason,
            elapsed(start),
            null,
            true,
            null);
    notifyListener(d);
    return new GuardOutcome(
        d,
        null,
        GuardResults.localBody(tool.name(), reason, cause == null ? null : cause.argument()),
        null);
  }

  private CheckParams checkParams(
      GuardCall call, GuardedTool tool, String authorizationId, String resource) {
    CheckParams.Builder b =
        CheckParams.builder()
            .authorizationId(authorizationId)
            .scope(tool.scope())
            .resource(resource);
    if (contextExtractor != null) {
      Map<String, Object> context = contextExtractor.apply(call);
      if (context != null && !context.isEmpty()) {
        b.context(context);
      }
    }
    if (sessionIdExtractor != null) {
      b.sessionId(sessionIdExtractor.apply(call));
    }
    if (estimatedCostExtractor != null) {
      Long cost = estimatedCostExtractor.apply(call);
      if (cost != null) {
        b.estimatedCostMicros(cost);
      }
    }
    return b.build();
  }

  private static CheckResult resultFor(CheckResponse response, String scope) {
    CheckResult result = response.results().get(scope);
    if (result == null) {
      throw new IllegalStateException(
          "expected a result for scope \""
              + scope
              + "\" in the check response, found results for "
              + response.results().keySet());
    }
    return result;
  }

  private Duration elapsed(long start) {
    return Duration.ofNanos(Math.max(0, nanoTime.getAsLong() - start));
  }

  private void notifyListener(GuardDecision decision) {
    if (listener == null) {
      return;
    }
    try {
      listener.onDecision(decision);
    } catch (RuntimeException e) {
      log.warn(
          "agentauth decision listener failed for tool {} ({} {}); the call proceeds as decided",
          decision.toolName(),
          decision.decision(),
          decision.reason(),
          e);
    }
  }

  private static Optional<String> clean(Optional<String> id) {
    return id == null ? Optional.empty() : id.filter(s -> !s.isBlank());
  }

  private static Throwable unwrap(Throwable e) {
    Throwable t = e;
    while (t instanceof CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  /** Waits for {@code stage}; its failure is rethrown as it was (a runtime exception or error). */
  private static <T> T join(CompletionStage<T> stage) {
    try {
      return stage.toCompletableFuture().join();
    } catch (CompletionException e) {
      Throwable cause = unwrap(e);
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      if (cause instanceof Error err) {
        throw err;
      }
      throw e;
    }
  }

  @Override
  public String toString() {
    return "ToolGuard{client=" + client + "}";
  }

  /**
   * Builder of {@link ToolGuard}. Required: one of {@link
   * #authorizationResolver(AuthorizationResolver)} or {@link
   * #asyncAuthorizationResolver(AsyncAuthorizationResolver)}. Not thread-safe.
   */
  public static final class Builder {
    private final AgentAuthClient client;
    private AuthorizationResolver resolver;
    private AsyncAuthorizationResolver asyncResolver;
    private Function<String, String> scopeMapper = Function.identity();
    private ResourceBinding defaultBinding = ResourceBinding.argumentsDigest();
    private final Map<String, ResourceBinding> bindings = new HashMap<>();
    private Function<GuardCall, Map<String, Object>> contextExtractor;
    private Function<GuardCall, String> sessionIdExtractor;
    private Function<GuardCall, Long> estimatedCostExtractor;
    private DecisionListener listener;
    private LongSupplier nanoTime = System::nanoTime;
    private String loggerName = ToolGuard.class.getName();

    private Builder(AgentAuthClient client) {
      this.client = client;
    }

    /**
     * Sets the function mapping (user, tool, arguments) to an authorization id; empty denies
     * locally. Replaces an async resolver set before. It must not block when calls are decided
     * asynchronously.
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
     * Sets how a tool name becomes the checked scope (default: the name itself). Applied once per
     * tool, when it is prepared.
     */
    public Builder scopeMapper(Function<String, String> mapper) {
      this.scopeMapper = Objects.requireNonNull(mapper, "mapper");
      return this;
    }

    /**
     * Sets the binding of every tool without one of its own (default {@link
     * ResourceBinding#argumentsDigest()}).
     */
    public Builder defaultResourceBinding(ResourceBinding binding) {
      this.defaultBinding = Objects.requireNonNull(binding, "binding");
      return this;
    }

    /** Sets what an approval of {@code toolName}'s calls covers (see {@link ResourceBinding}). */
    public Builder resourceBinding(String toolName, ResourceBinding binding) {
      Objects.requireNonNull(toolName, "toolName");
      this.bindings.put(toolName, Objects.requireNonNull(binding, "binding"));
      return this;
    }

    /**
     * Sets the function returning the check's {@code context} object, or {@code null} for none.
     * When it reads tool arguments (written by the model), keep the tool's scope {@code
     * fail_closed}.
     */
    public Builder contextExtractor(Function<GuardCall, Map<String, Object>> extractor) {
      this.contextExtractor = Objects.requireNonNull(extractor, "extractor");
      return this;
    }

    /** Sets the function returning the check's {@code session_id}, or {@code null} for none. */
    public Builder sessionIdExtractor(Function<GuardCall, String> extractor) {
      this.sessionIdExtractor = Objects.requireNonNull(extractor, "extractor");
      return this;
    }

    /** Sets the function returning the call's {@code estimated_cost_micros}, or {@code null}. */
    public Builder estimatedCostExtractor(Function<GuardCall, Long> extractor) {
      this.estimatedCostExtractor = Objects.requireNonNull(extractor, "extractor");
      return this;
    }

    /** Sets the listener told of every decision (default: none). */
    public Builder listener(DecisionListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /**
     * Sets the nanosecond clock that measures decision latency (default {@link System#nanoTime}).
     */
    public Builder nanoTime(LongSupplier nanoTime) {
      this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
      return this;
    }

    /**
     * Sets the name of the logger of the guard's WARN lines (refused key, failing listener); an
     * adapter names its own class, so that its users find the lines where its documentation says.
     */
    public Builder loggerName(String name) {
      this.loggerName = Objects.requireNonNull(name, "name");
      return this;
    }

    /**
     * Returns the guard.
     *
     * @throws IllegalStateException if no resolver was set
     */
    public ToolGuard build() {
      if (resolver == null && asyncResolver == null) {
        throw new IllegalStateException(
            "expected an authorization resolver: call authorizationResolver(...) or"
                + " asyncAuthorizationResolver(...)");
      }
      return new ToolGuard(this);
    }
  }
}
