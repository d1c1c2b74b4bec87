package dev.agentauth.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.server.McpSyncServer;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Stopping the example while an MCP client holds its session's event stream open: {@link
 * McpSessionsShutdown} ends the stream first, so the graceful shutdown does not wait out its 30 s.
 */
class McpSessionsShutdownIT {
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private static HttpRequest.Builder mcp(int port) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/mcp"))
        .header("Authorization", "Bearer alice-token");
  }

  private static HttpRequest post(int port, String sessionId, String body) {
    HttpRequest.Builder b =
        mcp(port)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (sessionId != null) {
      b.header("Mcp-Session-Id", sessionId);
    }
    return b.build();
  }

  @Test
  void anOpenEventStreamDoesNotHoldTheShutdown() throws Exception {
    ConfigurableApplicationContext ctx =
        new SpringApplication(NotesMcpServer.class)
            .run(
                "--server.port=0",
                "--spring.main.banner-mode=off",
                "--agentauth.base-url=" + AgentAuthTestServer.server().baseUrl(),
                "--agentauth.api-key=" + AgentAuthTestServer.toolServerKey().apiKey());
    long stopped;
    InputStream stream;
    try {
      int port = ctx.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
      HttpResponse<String> init =
          HTTP.send(
              post(
                  port,
                  null,
                  "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                      + "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
                      + "\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}"),
              HttpResponse.BodyHandlers.ofString());
      assertThat(init.statusCode()).isEqualTo(200);
      String session = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
      HTTP.send(
          post(port, session, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"),
          HttpResponse.BodyHandlers.discarding());
      CompletableFuture<HttpResponse<InputStream>> pending =
          HTTP.sendAsync(
              mcp(port)
                  .header("Accept", "text/event-stream")
                  .header("Mcp-Session-Id", session)
                  .GET()
                  .build(),
              HttpResponse.BodyHandlers.ofInputStream());
      // The stream's headers go out with its first event: notify the session until one arrives.
      McpSyncServer server = ctx.getBean(McpSyncServer.class);
      HttpResponse<InputStream> events = null;
      for (int i = 0; i < 40 && events == null; i++) {
        server.notifyToolsListChanged();
        try {
          events = pending.get(500, TimeUnit.MILLISECONDS);
        } catch (TimeoutException notYet) {
          // the GET has not reached the session yet
        }
      }
      assertThat(events).as("the event stream opened").isNotNull();
      assertThat(events.statusCode()).isEqualTo(200);
      stream = events.body();
    } finally {
      long start = System.nanoTime();
      ctx.close();
      stopped = System.nanoTime() - start;
    }

    assertThat(Duration.ofNanos(stopped)).isLessThan(Duration.ofSeconds(10));
    InputStream open = stream;
    CompletableFuture<byte[]> rest = CompletableFuture.supplyAsync(() -> readAll(open));
    assertThat(rest.get(10, TimeUnit.SECONDS)).as("the event stream ended").isNotNull();
  }

  private static byte[] readAll(InputStream in) {
    try (in) {
      return in.readAllBytes();
    } catch (java.io.IOException e) {
      // The connection closed under the read: the stream ended all the same.
      return new byte[0];
    }
  }
}
