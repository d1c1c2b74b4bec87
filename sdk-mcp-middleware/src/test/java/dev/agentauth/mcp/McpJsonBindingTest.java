package dev.agentauth.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.client.AgentAuthClient;
import java.io.File;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** Without a JSON binding for the MCP SDK, building a guard fails at once, naming both bindings. */
class McpJsonBindingTest {

  @Test
  void withABindingOnTheClassPathTheGuardBuilds() {
    assertThat(new Probe().get()).isEqualTo("built");
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
  void onAClassPathWithoutTheBindingBuildingTheGuardFailsFast() throws Exception {
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
      assertThat(probe.get()).isEqualTo(McpJsonBinding.MISSING);
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

  /** Builds a guard as an application does: "built", or the message of the builder's error. */
  public static final class Probe implements Supplier<String> {
    @Override
    public String get() {
      AgentAuthClient client =
          AgentAuthClient.builder().baseUrl("http://127.0.0.1:9").apiKey("aa_test_key").build();
      try {
        AgentAuthToolGuard.builder()
            .client(client)
            .userIdSource(UserIdSource.transportContext("user_id"))
            .authorizationResolver((userId, tool, arguments) -> Optional.of("auth_1"))
            .build();
        return "built";
      } catch (IllegalStateException e) {
        return e.getMessage();
      }
    }
  }
}
