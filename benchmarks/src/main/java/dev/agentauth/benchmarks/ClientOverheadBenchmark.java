package dev.agentauth.benchmarks;

import dev.agentauth.client.CheckParams;
import dev.agentauth.model.CheckResponse;
import java.io.IOException;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Client overhead per synchronous check: {@code AgentAuthClient.check} against a raw OkHttp call
 * with the same body and headers (bearer key, JSON content type, a fresh {@code Idempotency-Key},
 * as the client sends) to the same embedded server, in one run. The target is a difference of at
 * most 50 µs per call.
 */
@State(Scope.Benchmark)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+UseZGC"})
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ClientOverheadBenchmark {
  private static final MediaType JSON = MediaType.get("application/json");

  private LocalServer local;
  private OkHttpClient raw;
  private Request.Builder rawRequest;
  private byte[] body;
  private CheckParams params;

  @Setup(Level.Iteration)
  public void setUp() {
    local = new LocalServer();
    raw = new OkHttpClient();
    params =
        CheckParams.builder()
            .authorizationId(local.authorizationId)
            .scope("email.send")
            .resource("mailbox:42")
            .build();
    body =
        ("{\"authorization_id\":\""
                + local.authorizationId
                + "\",\"scopes\":[\"email.send\"],\"resource\":\"mailbox:42\"}")
            .getBytes(java.nio.charset.StandardCharsets.UTF_8);
    rawRequest =
        new Request.Builder()
            .url(local.server.baseUrl() + "/v1/check")
            .header("Authorization", "Bearer " + local.server.apiKey());
  }

  @TearDown(Level.Iteration)
  public void tearDown() {
    local.close();
    raw.dispatcher().executorService().shutdown();
    raw.connectionPool().evictAll();
  }

  /** The bare round trip: raw OkHttp, response bytes read, nothing parsed. */
  @Benchmark
  public byte[] rawOkHttp() throws IOException {
    Request request =
        rawRequest
            .header("Idempotency-Key", UUID.randomUUID().toString())
            .post(RequestBody.create(body, JSON))
            .build();
    try (Response response = raw.newCall(request).execute()) {
      return response.body().bytes();
    }
  }

  /** The same check through the typed client: validation, serialization, retries, parsing. */
  @Benchmark
  public CheckResponse client() {
    return local.client.check(params);
  }
}
