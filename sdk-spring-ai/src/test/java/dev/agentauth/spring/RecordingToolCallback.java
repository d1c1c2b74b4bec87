package dev.agentauth.spring;

import java.util.concurrent.atomic.AtomicReference;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;

/**
 * A tool callback recording what it was called with (public: the auto-configuration's tests use it
 * too).
 */
public final class RecordingToolCallback implements ToolCallback {
  private final String name;

  /** The input of the last call; {@code null} while the tool has not run. */
  public final AtomicReference<String> input = new AtomicReference<>();

  /** The tool context of the last call. */
  public final AtomicReference<ToolContext> context = new AtomicReference<>();

  public RecordingToolCallback(String name) {
    this.name = name;
  }

  @Override
  public ToolDefinition getToolDefinition() {
    return ToolDefinition.builder()
        .name(name)
        .description("test tool")
        .inputSchema("{\"type\":\"object\"}")
        .build();
  }

  @Override
  public String call(String toolInput) {
    return call(toolInput, null);
  }

  @Override
  public String call(String toolInput, ToolContext toolContext) {
    input.set(toolInput);
    context.set(toolContext);
    return "{\"customer\":\"ACME\"}";
  }
}
