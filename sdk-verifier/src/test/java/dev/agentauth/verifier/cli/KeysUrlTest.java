package dev.agentauth.verifier.cli;

import static dev.agentauth.verifier.cli.CliFixtures.json;
import static dev.agentauth.verifier.cli.CliFixtures.run;
import static dev.agentauth.verifier.cli.CliFixtures.scope;
import static dev.agentauth.verifier.cli.CliFixtures.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import dev.agentauth.verifier.KeyFingerprint;
import dev.agentauth.verifier.cli.CliFixtures.Run;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code --keys-url} against a JDK HTTP server on the loopback interface: the transport rules
 * (https only except to loopback, no redirects, 200 only, 1 MiB, timeouts) and their messages.
 */
class KeysUrlTest {

  @TempDir Path dir;

  private HttpServer server;
  private String baseUrl;
  private final List<String> requests = new CopyOnWriteArrayList<>();
  private volatile String keysBody = CliFixtures.keysDocument();

  /** Replaces the keys endpoint's answer when set. */
  private volatile HttpHandler custom;

  /** Released after each test, so handlers that stall let the server stop. */
  private final CountDownLatch release = new CountDownLatch(1);

  @BeforeEach
  void startServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          String path = exchange.getRequestURI().getRawPath();
          requests.add(exchange.getRequestMethod() + " " + path);
          HttpHandler handler = custom;
          if (handler != null) {
            handler.handle(exchange);
            return;
          }
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
    release.countDown();
    server.stop(0);
  }

  private void respond(HttpHandler handler) {
    custom = handler;
  }

  private void awaitRelease() {
    try {
      release.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private String receiptFile() {
    return write(dir, "one.json", json(scope("01JA", "11:00", "allow"))).toString();
  }

  @Test
  void keysAreFetchedFromTheWorkspaceKeysEndpoint() {
    Run run = run("verify", "--keys-url", baseUrl + "/", "--workspace", "ws_cli", receiptFile());

    assertThat(run.exitCode()).isZero();
    assertThat(run.outLines())
        .containsExactly(
            "VALID   01JA  (allow email.send)", "RESULT  VALID  1 receipt: 1 valid, 0 invalid");
    assertThat(run.err()).isEmpty(); // loopback: no plain-HTTP warning
    assertThat(requests).containsExactly("GET /api/v1/workspaces/ws_cli/keys");
  }

  @Test
  void keysFingerprintFetchesTheDocumentToo() {
    Run run = run("keys", "fingerprint", "--keys-url", baseUrl, "--workspace", "ws_cli");

    assertThat(run.exitCode()).isZero();
    assertThat(run.outLines())
        .containsExactly("cli/k1  " + KeyFingerprint.of(CliFixtures.SIGNER.publicKey()));
    assertThat(requests).containsExactly("GET /api/v1/workspaces/ws_cli/keys");
  }

  @Test
  void keysFingerprintRefusesPlainHttpToo() {
    Run run =
        run("keys", "fingerprint", "--keys-url", "http://keys.example.com", "--workspace", "ws");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("uses plain http to a host that is not loopback: refused");
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
        .isEqualTo(
            "agentauth-verify: cannot fetch keys from "
                + url
                + "/v1/workspaces/ws_cli/keys: cannot connect to 127.0.0.1:"
                + server.getAddress().getPort()
                + " (connection refused or host unreachable)"
                + System.lineSeparator());
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

  @ParameterizedTest
  @ValueSource(
      strings = {
        "localhost",
        "LocalHost",
        "127.0.0.1",
        "127.1.2.3",
        "127.255.255.254",
        "[::1]",
        "[0:0:0:0:0:0:0:1]"
      })
  void loopbackHostsMayUsePlainHttp(String host) throws InputException {
    assertThat(KeysFetcher.isLoopback(host)).isTrue();
    assertThat(KeysFetcher.keysUri("http://" + host + ":8080", "ws").getScheme()).isEqualTo("http");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "keys.example.com",
        "localhost.example.com",
        "128.0.0.1",
        "10.0.0.1",
        "127.0.0.1.nip.io",
        "[::2]",
        "[::ffff:127.0.0.1]"
      })
  void plainHttpToAnyOtherHostIsRefusedBeforeConnecting(String host) {
    assertThat(KeysFetcher.isLoopback(host)).isFalse();

    Run run = run("verify", "--keys-url", "http://" + host, "--workspace", "ws_cli", receiptFile());

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.out()).isEmpty();
    assertThat(run.err())
        .startsWith("agentauth-verify: --keys-url http://" + host + " uses plain http")
        .contains("refused", "use https://");
    assertThat(run.err().lines()).hasSize(1);
    assertThat(requests).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"127.0.0", "127.0.0.256", "0x7f.0.0.1"})
  void spellingsOfLoopbackThatAreNotDottedQuadsAreRefused(String host) {
    assertThat(KeysFetcher.isLoopback(host)).isFalse();

    Run run = run("verify", "--keys-url", "http://" + host, "--workspace", "ws_cli", receiptFile());

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).startsWith("agentauth-verify: --keys-url ").contains("https://");
    assertThat(requests).isEmpty();
  }

  @Test
  void httpsToAnyHostIsAccepted() throws InputException {
    assertThat(KeysFetcher.keysUri("https://keys.example.com", "ws").toString())
        .isEqualTo("https://keys.example.com/v1/workspaces/ws/keys");
  }

  @Test
  void aRedirectIsRefusedNamingItsStatusAndLocation() {
    respond(
        exchange -> {
          exchange.getResponseHeaders().add("Location", "https://evil.example/keys");
          exchange.sendResponseHeaders(302, -1);
          exchange.close();
        });

    Run run = run("verify", "--keys-url", baseUrl, "--workspace", "ws_cli", receiptFile());

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.out()).isEmpty();
    assertThat(run.err())
        .isEqualTo(
            "agentauth-verify: GET "
                + baseUrl
                + "/v1/workspaces/ws_cli/keys returned HTTP 302 redirecting to"
                + " https://evil.example/keys: redirects are not followed; give the keys' final"
                + " base URL as --keys-url"
                + System.lineSeparator());
    assertThat(requests).containsExactly("GET /api/v1/workspaces/ws_cli/keys");
  }

  @Test
  void aRedirectToTheSameServerIsNotFollowedEither() {
    respond(
        exchange -> {
          requests.add("responded 308");
          exchange.getResponseHeaders().add("Location", "/api/v1/workspaces/ws_cli/keys2");
          exchange.sendResponseHeaders(308, -1);
          exchange.close();
        });

    Run run = run("verify", "--keys-url", baseUrl, "--workspace", "ws_cli", receiptFile());

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .contains("returned HTTP 308 redirecting to /api/v1/workspaces/ws_cli/keys2");
    assertThat(requests).containsExactly("GET /api/v1/workspaces/ws_cli/keys", "responded 308");
  }

  @Test
  void aServerErrorIsAnInputError() {
    respond(
        exchange -> {
          exchange.sendResponseHeaders(503, -1);
          exchange.close();
        });

    Run run = run("verify", "--keys-url", baseUrl, "--workspace", "ws_cli", receiptFile());

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("returned HTTP 503 (expected 200)");
  }

  @Test
  void aDocumentDeclaringMoreThanOneMebibyteIsRefusedBeforeItsBodyIsRead() {
    int size = KeysFetcher.MAX_BODY_BYTES + 1;
    respond(
        exchange -> {
          exchange.sendResponseHeaders(200, size);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(new byte[size]);
          } catch (IOException e) {
            requests.add("body cut off");
          }
        });

    Run run = run("verify", "--keys-url", baseUrl, "--workspace", "ws_cli", receiptFile());

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .contains(
            "declares Content-Length 1048577, more than the 1048576-byte limit; refused without"
                + " reading it");
  }

  @Test
  void aChunkedDocumentIsCutOffOnceItPassesOneMebibyte() {
    // An endless body: only a limit enforced while streaming ends the fetch.
    respond(
        exchange -> {
          exchange.sendResponseHeaders(200, 0); // chunked
          byte[] chunk = new byte[16 * 1024];
          Arrays.fill(chunk, (byte) ' ');
          try (OutputStream out = exchange.getResponseBody()) {
            while (true) {
              out.write(chunk);
            }
          } catch (IOException e) {
            requests.add("body cut off");
          }
        });

    Run run = run("verify", "--keys-url", baseUrl, "--workspace", "ws_cli", receiptFile());

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .contains("is larger than the 1048576-byte limit; stopped reading it")
        .doesNotContain("Content-Length");
  }

  @Test
  void aDocumentOfExactlyTheLimitIsRead() throws InputException {
    String doc = CliFixtures.keysDocument();
    keysBody = doc + " ".repeat(4096 - doc.length());
    KeysFetcher fetcher = new KeysFetcher(Duration.ofSeconds(5), Duration.ofSeconds(10), 4096);

    String body = fetcher.fetch(KeysFetcher.keysUri(baseUrl, "ws_cli"));

    assertThat(body).hasSize(4096).isEqualTo(keysBody);
  }

  @Test
  void aServerThatNeverAnswersTimesOut() {
    respond(exchange -> awaitRelease());
    KeysFetcher fetcher = new KeysFetcher(Duration.ofSeconds(5), Duration.ofMillis(300), 1 << 20);

    assertThatThrownBy(() -> fetcher.fetch(KeysFetcher.keysUri(baseUrl, "ws_cli")))
        .isInstanceOf(InputException.class)
        .hasMessage(
            "cannot fetch keys from "
                + baseUrl
                + "/v1/workspaces/ws_cli/keys: no complete response within 300 ms");
  }

  @Test
  void aServerThatStallsInTheBodyTimesOut() {
    respond(
        exchange -> {
          exchange.sendResponseHeaders(200, 1000);
          exchange.getResponseBody().write("{\"workspace_id\":".getBytes(StandardCharsets.UTF_8));
          exchange.getResponseBody().flush();
          awaitRelease();
        });
    KeysFetcher fetcher = new KeysFetcher(Duration.ofSeconds(5), Duration.ofMillis(300), 1 << 20);

    assertThatThrownBy(() -> fetcher.fetch(KeysFetcher.keysUri(baseUrl, "ws_cli")))
        .isInstanceOf(InputException.class)
        .hasMessageEndingWith(": no complete response within 300 ms");
  }

  @Test
  void theCliUsesTheRequestTimeoutItIsGiven() {
    respond(exchange -> awaitRelease());
    KeysFetcher fetcher = new KeysFetcher(Duration.ofSeconds(5), Duration.ofMillis(200), 1 << 20);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();

    int code =
        new VerifyCli(CliFixtures.CLOCK, InputStream.nullInputStream(), out, err, fetcher, 1)
            .run("verify", "--keys-url", baseUrl, "--workspace", "ws_cli", receiptFile());

    assertThat(code).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("no complete response within 200 ms");
  }

  @Test
  void transportFailuresAreDescribedInOneLine() {
    KeysFetcher fetcher = new KeysFetcher(Duration.ofSeconds(2), Duration.ofSeconds(7), 1 << 20);
    URI uri = URI.create("https://keys.example.com:8443/v1/workspaces/ws/keys");

    assertThat(fetcher.describe(new ConnectException(), uri))
        .isEqualTo(
            "cannot connect to keys.example.com:8443 (connection refused or host unreachable)");
    assertThat(
            fetcher.describe(
                new ConnectException().initCause(new UnresolvedAddressException()), uri))
        .isEqualTo("unknown host keys.example.com (DNS look-up failed)");
    assertThat(fetcher.describe(new UnknownHostException("keys.example.com"), uri))
        .isEqualTo("unknown host keys.example.com (DNS look-up failed)");
    assertThat(fetcher.describe(new HttpConnectTimeoutException("HTTP connect timed out"), uri))
        .isEqualTo("connection timed out after 2 s");
    assertThat(fetcher.describe(new HttpTimeoutException("request timed out"), uri))
        .isEqualTo("no complete response within 7 s");
    assertThat(fetcher.describe(new IOException("connection reset"), uri))
        .isEqualTo("IOException: connection reset");
  }

  @Test
  void aBodyThatIsNotUtf8IsAnInputError() {
    respond(
        exchange -> {
          byte[] body = {'{', (byte) 0xC3, (byte) 0x28, '}'};
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });

    Run run = run("verify", "--keys-url", baseUrl, "--workspace", "ws_cli", receiptFile());

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .isEqualTo(
            "agentauth-verify: the keys response from "
                + baseUrl
                + "/v1/workspaces/ws_cli/keys is not UTF-8 text"
                + System.lineSeparator());
  }
}
