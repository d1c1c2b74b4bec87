package dev.agentauth.langchain4j;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.service.tool.ToolExecutionResult;
import dev.langchain4j.service.tool.ToolExecutor;
import java.util.Objects;

/**
 * A {@link ToolExecutor} that checks each call with agentauth before its delegate runs. Allowed:
 * the delegate's own result. Refused ({@code deny}, {@code confirm}, {@code escalate}, a local
 * denial or a fail-closed fallback): an error result whose text is the decision object (see {@link
 * LangChain4jToolGuard}), so that the model reads why and the conversation goes on. Made by {@link
 * LangChain4jToolGuard}; thread-safe.
 */
public final class GuardedToolExecutor implements ToolExecutor {
  private final LangChain4jToolGuard guard;
  private final ToolExecutor delegate;
  private final LangChain4jToolGuard.Prepared prepared;

  GuardedToolExecutor(
      LangChain4jToolGuard guard, ToolExecutor delegate, LangChain4jToolGuard.Prepared prepared) {
    this.guard = guard;
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    this.prepared = prepared;
  }

  /** Returns the executor this one guards. */
  public ToolExecutor delegate() {
    return delegate;
  }

  @Override
  public ToolExecutionResult executeWithContext(
      ToolExecutionRequest request, InvocationContext context) {
    return guard.execute(prepared, delegate, request, context);
  }

  @Override
  public String execute(ToolExecutionRequest request, Object memoryId) {
    return executeWithContext(request, InvocationContext.builder().chatMemoryId(memoryId).build())
        .resultText();
  }

  @Override
  public String toString() {
    return "GuardedToolExecutor{" + delegate + "}";
  }
}
