package dev.agentauth.docs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.model.AgentAuthJson;
import dev.agentauth.model.ApiKeyResponse;
import dev.agentauth.server.AgentAuthServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.atomic.AtomicInteger;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * One embedded server (memory store, free port, system clock) shared by the tests of a snippet
 * class; every test gets its own workspace, so that workspace-wide state (tombstones, bundles,
 * counters) of one test never reaches another.
 */
final class DocService implements AutoCloseable {
  static final String ADMIN_TOKEN = "doc-snippets-admin-token";

  private static final MediaType JSON = MediaType.get("application/json");
  private static final AtomicInteger WORKSPACES = new AtomicInteger();

  final AgentAuthServer server;
  private final OkHttpClient http = new OkHttpClient();
  private final ObjectMapper json = AgentAuthJson.newObjectMapper();

  DocService() {
    server = AgentAuthServer.builder().port(0).adminToken(ADMIN_TOKEN).build().start();
  }

  /** A client of a new workspace on the Pro plan (escalations, budgets). */
  AgentAuthClient newWorkspace() {
    return AgentAuthClient.builder()
        .baseUrl(server.baseUrl())
        .apiKey(newWorkspaceKey())
        .maxRetries(0)
        .build();
  }

  /** The API key of a new workspace on the Pro plan. */
  String newWorkspaceKey() {
    String id = "ws_doc_" + WORKSPACES.incrementAndGet();
    admin("/admin/v1/workspaces", "{\"workspace_id\":\"" + id + "\",\"plan\":\"pro\"}");
    String body = admin("/admin/v1/workspaces/" + id + "/api-keys", "");
    try {
      return json.readValue(body, ApiKeyResponse.class).apiKey();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private String admin(String path, String body) {
    Request request =
        new Request.Builder()
            .url(server.baseUrl() + path)
            .header("Authorization", "Bearer " + ADMIN_TOKEN)
            .post(RequestBody.create(body, JSON))
            .build();
    try (Response response = http.newCall(request).execute()) {
      String text = response.body().string();
      assertThat(response.code()).as("POST %s: %s", path, text).isEqualTo(201);
      return text;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    server.close();
    http.dispatcher().executorService().shutdown();
    http.connectionPool().evictAll();
  }
}
