package dev.agentauth.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.server.ServerHarness.Resp;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/**
 * The console's files (decisions.md §20): served from the jar at {@code /console/} with a strict
 * Content-Security-Policy and the right content types, never a cookie, and 404 problem+json for
 * anything else, including every way out of the console's directory.
 */
class ConsoleFilesIT {
  private static final String CSP =
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src"
          + " 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none';"
          + " frame-ancestors 'none'";

  private static ServerHarness h;

  @BeforeAll
  static void start() {
    h = ServerHarness.start();
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  @Test
  void indexIsHtmlUnderAStrictPolicyWithoutCookies() {
    Resp r = h.send("GET", "/console/", null, null, Map.of());

    assertThat(r.status()).isEqualTo(200);
    assertThat(r.header("Content-Type")).isEqualTo("text/html;charset=utf-8");
    assertThat(r.header("Content-Security-Policy")).isEqualTo(CSP);
    assertThat(r.header("X-Content-Type-Options")).isEqualTo("nosniff");
    assertThat(r.header("X-Frame-Options")).isEqualTo("DENY");
    assertThat(r.header("Referrer-Policy")).isEqualTo("no-referrer");
    assertThat(r.header("Set-Cookie")).isNull();
    assertThat(r.raw()).contains("<script type=\"module\" src=\"app.js\"></script>");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "app.js:text/javascript;charset=utf-8",
        "verify.js:text/javascript;charset=utf-8",
        "console.css:text/css;charset=utf-8",
        "offline.html:text/html;charset=utf-8",
        "bench.html:text/html;charset=utf-8"
      })
  void everyFileHasItsContentTypeAndThePolicy(String fileAndType) {
    String file = fileAndType.substring(0, fileAndType.indexOf(':'));
    Resp r = h.send("GET", "/console/" + file, null, null, Map.of());

    assertThat(r.status()).as(file).isEqualTo(200);
    assertThat(r.header("Content-Type")).isEqualTo(fileAndType.substring(file.length() + 1));
    assertThat(r.header("Content-Security-Policy")).isEqualTo(CSP);
    assertThat(r.header("Set-Cookie")).isNull();
  }

  @Test
  void consoleWithoutSlashRedirectsToTheIndex() {
    RawHttp.Response r = raw("/console");

    assertThat(r.status()).isEqualTo(301);
    assertThat(r.header("Location")).endsWith("/console/");
    assertThat(r.header("Content-Security-Policy")).isEqualTo(CSP);
  }

  @Test
  void anUnknownFileIs404ProblemJsonNotAnHtmlPage() {
    Resp r = h.send("GET", "/console/missing.js", null, null, Map.of());

    assertThat(r.status()).isEqualTo(404);
    assertThat(r.header("Content-Type")).startsWith("application/problem+json");
    assertThat(r.code()).isEqualTo("not_found");
    assertThat(r.body().path("detail").asText()).contains("missing.js");
  }

  /** Ways out of console/ or into what is not a file: each answers a problem, never a file. */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "/console/../console/../pom.xml",
        "/console/..%2fdb%2fpostgres%2fV1__schema.sql",
        "/console/%2e%2e/%2e%2e/dev/agentauth/server/ServerMain.class",
        "/console/%2e%2e%2fspec%2fREADME.md",
        "/console/js/",
        "/console/.hidden.js",
        "/console/APP.JS",
        "/console/app.js%00.html",
        "/console/app.js/",
        "/console/app.js//",
        "/console/./app.js/",
        "/console/..;/app.js",
        "/console/dev/agentauth/server/ServerMain.class",
        "/console/db",
        "/console//etc/passwd"
      })
  void noPathLeavesTheConsoleDirectoryOrListsOne(String path) {
    RawHttp.Response r = raw(path);

    assertThat(r.status()).as(path).isIn(400, 404);
    assertThat(r.header("Content-Type")).as(path).startsWith("application/problem+json");
    assertThat(r.text()).as(path).doesNotContain("<html").doesNotContain("package ");
  }

  @Test
  void theConsoleCanBeTurnedOff() {
    try (ServerHarness off = ServerHarness.start(AgentAuthServer.builder().console(false))) {
      Resp r = off.send("GET", "/console/", null, null, Map.of());

      assertThat(r.status()).isEqualTo(404);
      assertThat(r.header("Content-Type")).startsWith("application/problem+json");
    }
  }

  @Test
  void serverMainTurnsTheConsoleOnByDefaultAndOffWithNoConsoleOrFalse() {
    assertThat(parse()).isTrue();
    assertThat(parse("--console")).isTrue();
    assertThat(parse("--no-console")).isFalse();
    assertThat(parse("--console=false")).isFalse();
    assertThat(parse("--console=true")).isTrue();
  }

  private static final Pattern INLINE_SCRIPT = Pattern.compile("<script(?![^>]*\\bsrc=)[^>]*>");
  private static final Pattern INLINE_HANDLER =
      Pattern.compile("\\son[a-z]+\\s*=", Pattern.CASE_INSENSITIVE);

  /**
   * The pages hold no inline script, style or event handler (the policy would block them) and load
   * nothing from another origin.
   */
  @ParameterizedTest
  @ValueSource(strings = {"index.html", "offline.html", "bench.html"})
  void pagesHaveNoInlineCodeAndNoThirdPartyOrigins(String page) throws IOException {
    String html;
    try (InputStream in = getClass().getClassLoader().getResourceAsStream("console/" + page)) {
      assertThat(in).as(page).isNotNull();
      html = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    assertThat(INLINE_SCRIPT.matcher(html).find()).as("inline <script> in " + page).isFalse();
    assertThat(html).doesNotContain("<style").doesNotContain(" style=");
    assertThat(INLINE_HANDLER.matcher(html).find()).as("inline handler in " + page).isFalse();
    for (String attribute : List.of("src=\"http", "href=\"http", "src=\"//", "href=\"//")) {
      assertThat(html).as(page).doesNotContain(attribute);
    }
  }

  private static boolean parse(String... args) {
    ServerMain main = new ServerMain();
    new CommandLine(main).parseArgs(args);
    return main.console;
  }

  private static RawHttp.Response raw(String path) {
    String request = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    List<RawHttp.Response> responses =
        new RawHttp(h.server.port()).exchange(request.getBytes(StandardCharsets.ISO_8859_1), false);
    assertThat(responses).as(path).isNotEmpty();
    return responses.get(0);
  }
}
