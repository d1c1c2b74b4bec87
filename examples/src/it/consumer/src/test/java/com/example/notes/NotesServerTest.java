package com.example.notes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.AuthorizationCreateParams;
import dev.agentauth.server.AgentAuthServer;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URL;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.Manifest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The notes server against an embedded agentauth reference server (memory store), called with the
 * MCP Java SDK's client; and what agentauth's artifacts put on this project's class path.
 */
class NotesServerTest {
  private static AgentAuthServer agentAuth;
  private static NotesServer notes;
  private static final List<McpSyncClient> clients = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    agentAuth = AgentAuthServer.builder().build().start();
    AgentAuthClient client =
        AgentAuthClient.builder().baseUrl(agentAuth.baseUrl()).apiKey(agentAuth.apiKey()).build();
    String alice = authorize(client, "alice", NotesServer.TOOL);
    String bob = authorize(client, "bob", "write_notes");
    notes = NotesServer.start(client, Map.of("alice", alice, "bob", bob), 0);
  }

  @AfterAll
  static void stop() {
    clients.forEach(McpSyncClient::close);
    if (notes != null) {
      notes.close();
    }
    if (agentAuth != null) {
      agentAuth.close();
    }
  }

  private static String authorize(AgentAuthClient client, String user, String scope) {
    return client
        .authorizations()
        .create(
            AuthorizationCreateParams.inline()
                .userId(user)
                .agentId("notes_agent")
                .scope(scope)
                .expiresAt(Instant.now().plus(Duration.ofDays(1)))
                .build())
        .authorizationId();
  }

  /** Calls {@code read_notes} as {@code user} (the identity header), or with no header. */
  private static CallToolResult readNotesAs(String user) {
    URI uri = URI.create(notes.url());
    HttpClientStreamableHttpTransport transport =
        HttpClientStreamableHttpTransport.builder(uri.getScheme() + "://" + uri.getAuthority())
            .endpoint(uri.getPath())
            .addHttpRequestCustomizer(
                (builder, method, target, body, context) -> {
                  if (user != null) {
                    builder.header(NotesServer.USER_HEADER, user);
                  }
                })
            .build();
    McpSyncClient client = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(10)).build();
    clients.add(client);
    client.initialize();
    return client.callTool(CallToolRequest.builder(NotesServer.TOOL).arguments(Map.of()).build());
  }

  private static String text(CallToolResult r) {
    return ((TextContent) r.content().get(0)).text();
  }

  private static Map<?, ?> decision(CallToolResult r) {
    assertEquals(Boolean.TRUE, r.isError(), () -> "isError of " + r);
    return (Map<?, ?>) r.structuredContent();
  }

  @Test
  void aGrantedUserRunsTheTool() {
    CallToolResult r = readNotesAs("alice");
    assertNotEquals(Boolean.TRUE, r.isError(), () -> "isError of " + r);
    assertEquals("You have 2 notes.", text(r));
  }

  @Test
  void aScopeOutsideTheAuthorizationIsDeniedByTheServerWithAReceipt() {
    Map<?, ?> d = decision(readNotesAs("bob"));
    assertEquals("deny", d.get("decision"));
    assertEquals("scope_not_authorized", d.get("reason"));
    assertTrue(
        String.valueOf(d.get("receipt_id")).matches("[0-9A-HJKMNP-TV-Z]{26}"),
        () -> "a receipt id (ULID) in " + d);
  }

  @Test
  void aUserWithoutAGrantIsDeniedLocally() {
    Map<?, ?> d = decision(readNotesAs("mallory"));
    assertEquals("deny", d.get("decision"));
    assertEquals("authorization_not_found", d.get("reason"));
    assertEquals(Boolean.TRUE, d.get("local"));
  }

  @Test
  void noIdentityHeaderIsDeniedLocally() {
    Map<?, ?> d = decision(readNotesAs(null));
    assertEquals("deny", d.get("decision"));
    assertEquals("missing_user_id", d.get("reason"));
  }

  // ---- what agentauth's artifacts put on a user's class path

  @Test
  void slf4jSimpleAndItsConfigurationAreNotOnTheClassPath() {
    assertThrows(
        ClassNotFoundException.class,
        () -> Class.forName("org.slf4j.simple.SimpleLogger"),
        "slf4j-simple came with agentauth's artifacts");
    assertNull(
        getClass().getClassLoader().getResource("simplelogger.properties"),
        "a simplelogger.properties came with agentauth's artifacts");
  }

  @Test
  void thisProjectsLogbackIsTheSlf4jProviderAndItsLevelsApplyToAgentAuth() {
    assertEquals(
        "ch.qos.logback.classic.LoggerContext",
        LoggerFactory.getILoggerFactory().getClass().getName());
    // src/test/resources/logback-test.xml: dev.agentauth at WARN, com.example at INFO.
    assertFalse(LoggerFactory.getLogger(AgentAuthServer.class).isInfoEnabled());
    assertTrue(LoggerFactory.getLogger(AgentAuthServer.class).isWarnEnabled());
    assertTrue(LoggerFactory.getLogger(NotesServer.class).isInfoEnabled());
  }

  @Test
  void theKotlinStandardLibraryIsTheVersionAgentAuthIsTestedWith() throws Exception {
    // OkHttp's POM asks for an older one than Javalin's; agentauth's POMs name the tested one.
    String expected = System.getProperty("agentauth.kotlin.version");
    assertNotEquals(null, expected);
    String jar =
        Class.forName("kotlin.KotlinVersion")
            .getProtectionDomain()
            .getCodeSource()
            .getLocation()
            .getPath();
    assertTrue(jar.endsWith("/kotlin-stdlib-" + expected + ".jar"), jar);
  }

  @Test
  void everyJackson2JarIsOfOneMinorVersion() throws IOException {
    // Jackson's jars are OSGi bundles: Bundle-SymbolicName com.fasterxml.jackson.*.
    Map<String, String> versions = new TreeMap<>();
    for (URL url :
        Collections.list(getClass().getClassLoader().getResources("META-INF/MANIFEST.MF"))) {
      try (InputStream in = url.openStream()) {
        var attributes = new Manifest(in).getMainAttributes();
        String name = attributes.getValue("Bundle-SymbolicName");
        String version = attributes.getValue("Bundle-Version");
        if (name != null && name.startsWith("com.fasterxml.jackson.") && version != null) {
          versions.put(name.split(";")[0].strip(), version);
        }
      }
    }
    assertTrue(
        versions.containsKey("com.fasterxml.jackson.core.jackson-databind"), versions::toString);
    assertTrue(
        versions.containsKey("com.fasterxml.jackson.dataformat.jackson-dataformat-yaml"),
        versions::toString);
    assertEquals(
        1,
        versions.values().stream()
            .map(v -> v.replaceAll("^(\\d+\\.\\d+).*", "$1"))
            .distinct()
            .count(),
        () -> "Jackson 2 minors: " + versions);
  }
}
