package dev.agentauth.examples;

import static dev.agentauth.examples.ExampleTestSupport.JSON;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Speaks raw JSON-RPC to {@link GuardedToolServer} over stdio with no service configured, so that
 * it starts the embedded reference server and the demo authorization: standard output must carry
 * nothing but MCP messages, concurrent calls must all be answered, and closing standard input must
 * stop the process.
 */
class GuardedToolServerStdoutIT {
  private static final String END = "<end of stream>";

  @Test
  void stdoutCarriesOnlyJsonRpcAndEveryConcurrentCallIsAnswered() throws Exception {
    ProcessBuilder pb = new ProcessBuilder(ExampleTestSupport.serverCommand());
    pb.environment().remove("AGENTAUTH_URL");
    pb.environment().remove("AGENTAUTH_API_KEY");
    Process process = pb.start();
    try {
      BlockingQueue<String> stdout = lines(process);
      CompletableFuture<String> stderr = all(process);
      OutputStream stdin = process.getOutputStream();

      send(
          stdin,
          "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
              + "\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
              + "\"clientInfo\":{\"name\":\"raw-test\",\"version\":\"1\"}}}");
      JsonNode init = message(stdout);
      assertThat(init.path("id").asInt()).isEqualTo(1);
      assertThat(init.path("result").path("serverInfo").path("name").asText())
          .isEqualTo("agentauth-guarded-tools");

      // Eight calls written at once: the server answers them concurrently.
      StringBuilder batch = new StringBuilder();
      batch.append("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
      for (int id = 2; id <= 8; id++) {
        batch.append(callLine(id, "read_calendar", "{\"user_id\":\"demo_user\"}")).append('\n');
      }
      batch.append(callLine(9, "delete_file", "{\"user_id\":\"demo_user\",\"path\":\"/tmp/x\"}"));
      send(stdin, batch.toString());
      Map<Integer, JsonNode> answers = new HashMap<>();
      while (answers.size() < 8) {
        JsonNode m = message(stdout);
        answers.put(m.path("id").asInt(), m.path("result"));
      }

      for (int id = 2; id <= 8; id++) {
        assertThat(answers.get(id).path("isError").asBoolean()).as("call %d", id).isFalse();
        assertThat(answers.get(id).path("content").path(0).path("text").asText())
            .startsWith("Calendar for ");
      }
      JsonNode confirm = answers.get(9).path("structuredContent");
      assertThat(confirm.path("decision").asText()).isEqualTo("confirm");
      assertThat(confirm.path("confirm_nonce").asText()).isNotBlank();

      stdin.close();
      assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("exits when stdin closes").isTrue();
      assertThat(process.exitValue()).isZero();
      // Whatever else reached stdout must be MCP messages too.
      for (String line = stdout.take(); !line.equals(END); line = stdout.take()) {
        assertJsonRpc(line);
      }
      String log = stderr.get(10, TimeUnit.SECONDS);
      assertThat(log)
          .contains("started an embedded agentauth reference server at http://")
          .containsPattern("demo authorization auth_\\S+ for demo_user")
          .contains("read_calendar user=demo_user -> allow authorization_granted_scope_active")
          .contains("standard input closed; stopping");
    } finally {
      process.destroyForcibly();
    }
  }

  private static String callLine(int id, String tool, String arguments) {
    return "{\"jsonrpc\":\"2.0\",\"id\":"
        + id
        + ",\"method\":\"tools/call\",\"params\":{\"name\":\""
        + tool
        + "\",\"arguments\":"
        + arguments
        + "}}";
  }

  private static void send(OutputStream stdin, String lines) throws IOException {
    stdin.write((lines + "\n").getBytes(StandardCharsets.UTF_8));
    stdin.flush();
  }

  /** The next stdout line, which must be one JSON-RPC message. */
  private static JsonNode message(BlockingQueue<String> stdout) throws Exception {
    String line = stdout.poll(30, TimeUnit.SECONDS);
    assertThat(line).as("a message within 30 s").isNotNull().isNotEqualTo(END);
    return assertJsonRpc(line);
  }

  private static JsonNode assertJsonRpc(String line) throws IOException {
    JsonNode node = JSON.readTree(line);
    assertThat(node.isObject()).as("stdout line %s", line).isTrue();
    assertThat(node.path("jsonrpc").asText()).as("stdout line %s", line).isEqualTo("2.0");
    return node;
  }

  /** Standard output, line by line, then {@link #END}; read on its own thread. */
  private static BlockingQueue<String> lines(Process process) {
    BlockingQueue<String> queue = new LinkedBlockingQueue<>();
    Thread t =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String l = r.readLine(); l != null; l = r.readLine()) {
                  queue.add(l);
                }
              } catch (IOException e) {
                queue.add("<" + e + ">");
              } finally {
                queue.add(END);
              }
            },
            "child-stdout");
    t.setDaemon(true);
    t.start();
    return queue;
  }

  /** All of standard error, once the process closes it. */
  private static CompletableFuture<String> all(Process process) {
    CompletableFuture<String> f = new CompletableFuture<>();
    Thread t =
        new Thread(
            () -> {
              try {
                f.complete(
                    new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
              } catch (IOException e) {
                f.completeExceptionally(e);
              }
            },
            "child-stderr");
    t.setDaemon(true);
    t.start();
    return f;
  }
}
