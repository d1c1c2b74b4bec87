package dev.agentauth.verifier.cli;

import static dev.agentauth.verifier.cli.CliFixtures.json;
import static dev.agentauth.verifier.cli.CliFixtures.run;
import static dev.agentauth.verifier.cli.CliFixtures.scope;
import static dev.agentauth.verifier.cli.CliFixtures.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.agentauth.verifier.cli.CliFixtures.Run;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --keys-url} against a JDK HTTP server on the loopback interface. */
class KeysUrlTest {

  @TempDir Path dir;

  private HttpServer server;
  private String baseUrl;
  private final List<String> requests = new CopyOnWriteArrayList<>();
  private volatile String keysBody = CliFixtures.keysDocument();

  @BeforeEach
  void startServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          String path = exchange.getRequestURI().getRawPath();
          requests.add(exchange.getRequestMethod() + " " + path);
          byte[] body;
          int status;
          if (path.equals("/api/v1/workspaces/ws_cli/keys")) {
            status = 200;
            body = keysBody.getBytes(StandardCharsets.UTF_8);
          } else {
            status = 404;
            body = "{\"error\":\"not_found\"}".getBytes(StandardCharsets.UTF_8);
          }
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(status, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
    baseUrl = "http://127.0.0.1:" + server.getAddress().getPort() + "/api";
  }

  @AfterEach
  void stopServer() {
    server.stop(0);
  }

  private String receiptFile() {
    return write(dir, "one.json", json(scope("01JA", "11:00", "allow"))).toString();
  }

  @Test
  void keysAreFetchedFromTheWorkspaceKeysEndpoint() {
    Run run = run("verify", "--keys-url", baseUrl + "/", "--workspace", "ws_cli", receiptFile());

    assertThat(run.exitCode()).isZero();
    assertThat(run.outLines())
        .containsExactly("VALID   01JA  (allow email.send)", "1 receipt: 1 valid, 0 invalid");
    assertThat(run.err()).isEmpty(); // loopback: no plain-HTTP warning
    assertThat(requests).containsExactly("GET /api/v1/workspaces/ws_cli/keys");
  }

  @Test
  void aNotFoundResponseIsAnInputError() {
    Run run = run("verify", "--keys-url", baseUrl, "--workspace", "ws_nope", receiptFile());

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.out()).isEmpty();
    assertThat(run.err())
        .isEqualTo(
            "agentauth-verify: GET "
                + baseUrl
                + "/v1/workspaces/ws_nope/keys returned HTTP 404 (expected 200): check --keys-url"
                + " and --workspace"
                + System.lineSeparator());
  }

  @Test
  void aMalformedKeysResponseIsAnInputError() {
    keysBody = "<html>oops</html>";

    Run run = run("verify", "--keys-url", baseUrl, "--workspace", "ws_cli", receiptFile());

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("keys document is not valid JSON").doesNotContain("\tat ");
  }

  @Test
  void aKeysDocumentForAnotherWorkspaceIsRejected() {
    keysBody = CliFixtures.keysDocument().replace("\"ws_cli\"", "\"ws_evil\"");

    Run run = run("verify", "--keys-url", baseUrl, "--workspace", "ws_cli", receiptFile());

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("is for workspace \"ws_evil\", not \"ws_cli\"");
  }

  @Test
  void anUnreachableServerIsAnInputError() {
    String url = "http://127.0.0.1:" + server.getAddress().getPort();
    server.stop(0);

    Run run = run("verify", "--keys-url", url, "--workspace", "ws_cli", receiptFile());

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .startsWith("agentauth-verify: cannot fetch keys from ")
        .doesNotContain("\tat ");
  }

  @Test
  void theWorkspaceIsOnePercentEncodedPathSegment() throws InputException {
    URI uri = KeysFetcher.keysUri("https://h.example/base//", "ws/a b?");

    assertThat(uri.toString()).isEqualTo("https://h.example/base/v1/workspaces/ws%2Fa%20b%3F/keys");
  }

  @Test
  void badBaseUrlsAreRejected() {
    assertThatThrownBy(() -> KeysFetcher.keysUri("ftp://h.example", "ws"))
        .isInstanceOf(InputException.class);
    assertThatThrownBy(() -> KeysFetcher.keysUri("h.example", "ws"))
        .isInstanceOf(InputException.class);
    assertThatThrownBy(() -> KeysFetcher.keysUri("https://h.example/?x=1", "ws"))
        .isInstanceOf(InputException.class);
    assertThatThrownBy(() -> KeysFetcher.keysUri("https://h.example", ""))
        .isInstanceOf(InputException.class);
  }

  @Test
  void plainHttpToARemoteHostIsFlaggedAsInsecure() throws InputException {
    assertThat(KeysFetcher.insecure(KeysFetcher.keysUri("http://h.example", "ws"))).isTrue();
    assertThat(KeysFetcher.insecure(KeysFetcher.keysUri("https://h.example", "ws"))).isFalse();
    assertThat(KeysFetcher.insecure(KeysFetcher.keysUri("http://localhost:8080", "ws"))).isFalse();
    assertThat(KeysFetcher.insecure(KeysFetcher.keysUri("http://127.0.0.1:8080", "ws"))).isFalse();
    assertThat(KeysFetcher.insecure(KeysFetcher.keysUri("http://[::1]:8080", "ws"))).isFalse();
  }
}
