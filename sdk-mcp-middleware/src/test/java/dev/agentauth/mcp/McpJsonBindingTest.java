package dev.agentauth.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.client.AgentAuthClient;
import io.modelcontextprotocol.json.McpJsonMapperSupplier;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.io.File;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Without a JSON binding for the MCP SDK, wrapping a server's tool fails at once, naming both
 * bindings; building the guard and wrapping stateless tools (a ChatClient's) do not need one.
 */
class McpJsonBindingTest {

  @Test
  void withABindingOnTheClassPathTheGuardBuilds() {
    assertThat(new Probe().get()).isEqualTo("built; wrapped");
  }

  @Test
  void aClassLoaderThatSeesNoBindingIsRefusedNamingBothArtifacts() {
    ClassLoader none = new URLClassLoader(new URL[0], null);

    assertThatThrownBy(() -> McpJsonBinding.require(none))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("io.modelcontextprotocol.sdk:mcp-json-jackson2")
        .hasMessageContaining("io.modelcontextprotocol.sdk:mcp-json-jackson3")
        .hasMessageContaining("McpJsonMapperSupplier");
  }

  @Test
  void onAClassPathWithoutTheBindingWrappingAServersToolFailsFast() throws Exception {
    List<URL> urls = new ArrayList<>();
    String classPath = System.getProperty("surefire.test.class.path");
    if (classPath == null) {
      classPath = System.getProperty("java.class.path");
    }
    boolean removed = false;
    for (String entry : classPath.split(File.pathSeparator)) {
      if (entry.isEmpty()) {
        continue;
      }
      if (Path.of(entry).getFileName().toString().startsWith("mcp-json-jackson")) {
        removed = true;
        continue;
      }
      urls.add(url(entry));
    }
    assertThat(removed).as("the test class path has a binding to leave out").isTrue();

    Thread thread = Thread.currentThread();
    ClassLoader previous = thread.getContextClassLoader();
    try (URLClassLoader isolated =
        new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
      thread.setContextClassLoader(isolated);
      @SuppressWarnings("unchecked")
      Supplier<String> probe =
          (Supplier<String>)
              isolated.loadClass(Probe.class.getName()).getDeclaredConstructor().newInstance();

      assertThat(probe.getClass().getClassLoader()).isSameAs(isolated);
      assertThat(probe.get()).isEqualTo("built; stateless wrapped; " + McpJsonBinding.MISSING);
    } finally {
      thread.setContextClassLoader(previous);
    }
  }

  private static URL url(String entry) {
    try {
      return Path.of(entry).toUri().toURL();
    } catch (MalformedURLException e) {
      throw new IllegalArgumentException(entry, e);
    }
  }

  /**
   * Builds a guard and wraps tools as an application does, saying how far it got: the guard built,
   * a stateless tool wrapped (tried only when there is no binding), a server's tool wrapped, or the
   * message of the error that stopped it.
   */
  public static final class Probe implements Supplier<String> {
    @Override
    public String get() {
      StringBuilder steps = new StringBuilder();
      AgentAuthClient client =
          AgentAuthClient.builder().baseUrl("http://127.0.0.1:9").apiKey("aa_test_key").build();
      try {
        AgentAuthToolGuard guard =
            AgentAuthToolGuard.builder()
                .client(client)
                .userIdSource(UserIdSource.transportContext("user_id"))
                .authorizationResolver((userId, tool, arguments) -> Optional.of("auth_1"))
                .build();
        steps.append("built; ");
        Tool tool = Tool.builder().name("read_notes").inputSchema(Map.of("type", "object")).build();
        CallToolResult ok = CallToolResult.builder().addTextContent("ok").build();
        if (!ServiceLoader.load(McpJsonMapperSupplier.class).iterator().hasNext()) {
          guard.wrap(
              new McpStatelessServerFeatures.SyncToolSpecification(tool, (context, r) -> ok));
          steps.append("stateless wrapped; ");
        }
        guard.wrap(
            SyncToolSpecification.builder().tool(tool).callHandler((exchange, r) -> ok).build());
        return steps.append("wrapped").toString();
      } catch (IllegalStateException e) {
        return steps.append(e.getMessage()).toString();
      }
    }
  }
}
