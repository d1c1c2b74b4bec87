package dev.agentauth.server;

import static dev.agentauth.server.CheckFixtures.EXPIRES;
import static dev.agentauth.server.CheckFixtures.authorize;
import static dev.agentauth.server.CheckFixtures.check;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.server.ServerHarness.Resp;
import dev.agentauth.server.http.Api.Endpoint;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every cell of decisions.md §15's role table (role × endpoint → allowed or 403), generated from
 * the route table: a new {@code /v1} endpoint cannot be added without deciding its roles, because
 * every row is checked against the table's prose, written out here independently of the server.
 */
class RolesIT {
  private static final List<String> ROLES =
      List.of("full", "app", "agent", "tool_server", "approver", "auditor");

  private static ServerHarness h;
  private static final Map<String, String> keys = new LinkedHashMap<>();
  private static String authorizationId;
  private static String escalationId;
  private static String nonce;
  private static String spareKeyId;

  @BeforeAll
  static void start() {
    h = ServerHarness.start();
    for (String role : ROLES) {
      String body =
          role.equals("approver")
              ? "{\"role\":\"approver\",\"approver_id\":\"appr_1\"}"
              : "{\"role\":\"" + role + "\",\"name\":\"" + role + " key\"}";
      keys.put(role, h.newKey(body).path("api_key").asText());
    }
    spareKeyId = h.newKey("{\"role\":\"auditor\"}").path("key_id").asText();
    authorizationId =
        authorize(
            h,
            "{\"scopes\":[{\"name\":\"pay.send\"},{\"name\":\"email.send\"}],"
                + "\"requires_escalation_for\":[\"pay.send\"],"
                + "\"requires_confirm_for\":[\"email.send\"]}");
    escalationId = check(h, authorizationId, "pay.send").result().path("escalation_id").asText();
    nonce = check(h, authorizationId, "email.send").result().path("confirm_nonce").asText();
    Resp bundle =
        h.post(
            "/v1/agent-scope-bundles",
            h.json("{\"id\":\"support\",\"agent_id\":\"bot\",\"scopes\":[{\"name\":\"a\"}]}"));
    assertThat(bundle.status()).as(bundle.raw()).isEqualTo(201);
    // Receipts are signed in the background; wait for them, so that no snapshot of the state is
    // taken while one of them is still pending.
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (h.get("/v1/receipts?limit=100").raw().contains("\"signed\":false")) {
      assertThat(System.nanoTime()).as("receipts signed within 10 s").isLessThan(deadline);
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  /** §15's table, as its prose reads. */
  static boolean allowed(String role, String method, String path) {
    if (method.equals("GET") && path.equals("/v1/api-keys/current")) {
      return true; // any role
    }
    boolean apiKeys = path.startsWith("/v1/api-keys");
    // §20: webhooks are an application's (full and app keys), not even an auditor's to read.
    boolean webhooks = path.startsWith("/v1/webhooks");
    boolean resolve = method.equals("POST") && path.endsWith("/resolve");
    boolean get = method.equals("GET");
    // §18: the receipt log is read by every role that reads receipts; only full sets witnesses.
    boolean readsAuthorizationsOrReceipts =
        get
            && (path.startsWith("/v1/authorizations")
                || path.startsWith("/v1/receipts")
                || path.startsWith("/v1/log/"));
    boolean setsWitnesses = method.equals("PUT") && path.equals("/v1/log/witnesses");
    return switch (role) {
      case "full" -> true;
      case "app" -> !resolve && !apiKeys && !setsWitnesses;
      case "agent" ->
          (method.equals("POST") && path.equals("/v1/check")) || readsAuthorizationsOrReceipts;
      case "tool_server" ->
          allowed("agent", method, path)
              || (method.equals("POST") && path.startsWith("/v1/confirmations/"));
      case "approver" ->
          (path.startsWith("/v1/escalations") && (get || resolve)) || readsAuthorizationsOrReceipts;
      case "auditor" -> get && !apiKeys && !webhooks;
      default -> throw new IllegalArgumentException(role);
    };
  }

  private static List<Endpoint> keyed() {
    return h.server.endpoints().stream().filter(e -> e.access().equals("API_KEY")).toList();
  }

  @Test
  void everyApiKeyRowNamesExactlyTheRolesTheTableAllows() {
    assertThat(keyed()).hasSize(31);
    for (Endpoint e : keyed()) {
      List<String> expected =
          ROLES.stream().filter(role -> allowed(role, e.method(), e.path())).toList();
      assertThat(e.roles()).as(e.method() + " " + e.path()).containsExactlyElementsOf(expected);
    }
  }

  /** A request the row would carry out for a role allowed to: real ids, a valid body. */
  private static Object[] realRequest(Endpoint e) {
    String path =
        e.path()
            .replace("/v1/authorizations/{id}", "/v1/authorizations/" + authorizationId)
            .replace("/v1/escalations/{id}", "/v1/escalations/" + escalationId)
            .replace("{nonce}", nonce)
            .replace("/v1/agent-scope-bundles/{id}", "/v1/agent-scope-bundles/support")
            .replace("{key_id}", spareKeyId)
            .replace("/v1/webhooks/{id}", "/v1/webhooks/wh_unknown")
            .replace("/v1/receipts/{id}", "/v1/receipts/" + firstReceiptId());
    String body =
        switch (e.method() + " " + e.path()) {
          case "POST /v1/authorizations" ->
              "{\"user_id\":\"user_9\",\"agent_id\":\"agent_9\",\"expires_at\":\""
                  + EXPIRES
                  + "\",\"scopes\":[{\"name\":\"x.read\"}]}";
          case "POST /v1/check" ->
              "{\"authorization_id\":\"" + authorizationId + "\",\"scopes\":[\"email.send\"]}";
          case "POST /v1/confirmations/{nonce}" -> "{\"approved\":true}";
          case "POST /v1/escalations/{id}/resolve" ->
              "{\"resolution\":\"approved\",\"resolved_by\":\"appr_1\"}";
          case "POST /v1/agent-scope-bundles" ->
              "{\"id\":\"other\",\"agent_id\":\"bot\",\"scopes\":[{\"name\":\"a\"}]}";
          case "PUT /v1/agent-scope-bundles/{id}" ->
              "{\"agent_id\":\"bot-2\",\"scopes\":[{\"name\":\"b\"}]}";
          case "POST /v1/tombstones" -> "{\"resource\":\"doc/1\"}";
          case "POST /v1/api-keys" -> "{\"role\":\"full\"}";
          case "PUT /v1/log/witnesses" -> "{\"witnesses\":[]}";
          case "POST /v1/webhooks" ->
              "{\"url\":\"https://hooks.example.com/a\",\"events\":[\"escalation.created\"]}";
          default -> null;
        };
    return new Object[] {path, body};
  }

  private static String firstReceiptId() {
    return h.get("/v1/receipts?limit=1").body().path("receipts").get(0).path("receipt_id").asText();
  }

  /** Everything a forbidden call could change, read with a full key (uses of keys left out). */
  private static List<JsonNode> state() {
    List<JsonNode> s = new ArrayList<>();
    for (String path :
        List.of(
            "/v1/receipts?limit=100",
            "/v1/authorizations?limit=100",
            "/v1/escalations?limit=100",
            "/v1/agent-scope-bundles?limit=100",
            "/v1/tombstones?limit=100",
            "/v1/api-keys?limit=100",
            "/v1/webhooks",
            "/v1/log/witnesses")) {
      Resp r = h.get(path);
      assertThat(r.status()).as(path + " " + r.raw()).isEqualTo(200);
      r.body().findParents("last_used_at").forEach(n -> ((ObjectNode) n).remove("last_used_at"));
      s.add(r.body());
    }
    return s;
  }

  @Test
  void everyForbiddenCellIs403NamingTheRoleAndChangesNothing() {
    List<JsonNode> before = state();
    int cells = 0;
    for (Endpoint e : keyed()) {
      for (String role : ROLES) {
        if (allowed(role, e.method(), e.path())) {
          continue;
        }
        Object[] request = realRequest(e);
        Resp r = h.send(e.method(), (String) request[0], request[1], keys.get(role), Map.of());
        String cell = role + " × " + e.method() + " " + e.path();
        assertThat(r.status()).as(cell + ": " + r.raw()).isEqualTo(403);
        assertThat(r.code()).as(cell).isEqualTo("forbidden");
        assertThat(r.header("Content-Type")).as(cell).startsWith("application/problem+json");
        assertThat(r.body().path("detail").asText())
            .as(cell)
            .contains("role is " + role)
            .contains(e.method() + " " + e.path())
            .endsWith("(GET /v1/api-keys/current shows any key its role)");
        cells++;
      }
    }
    assertThat(cells).isEqualTo(82);
    assertThat(state()).isEqualTo(before);
    // The nonce and the escalation a forbidden call aimed at are still usable.
    assertThat(h.post("/v1/confirmations/" + nonce, h.json("{\"approved\":true}")).status())
        .isEqualTo(200);
  }

  @Test
  void everyAllowedCellPassesAccessAndReachesItsHandler() {
    List<JsonNode> before = state();
    int cells = 0;
    for (Endpoint e : keyed()) {
      for (String role : ROLES) {
        if (!allowed(role, e.method(), e.path())) {
          continue;
        }
        // Unknown ids and a body with an unknown member: the handler answers 404 or 400 (or a
        // list 200), so no cell changes anything.
        String path = e.path().replaceAll("\\{[a-z_]+\\}", "unknown_id_1");
        String body = e.method().equals("GET") ? null : "{\"no_such_member\":1}";
        Resp r = h.send(e.method(), path, body, keys.get(role), Map.of());
        String cell = role + " × " + e.method() + " " + e.path();
        assertThat(r.status()).as(cell + ": " + r.raw()).isNotIn(401, 403, 405, 500);
        if (r.status() == 404) {
          assertThat(r.body().path("detail").asText()).as(cell).isNotEqualTo("no such endpoint");
        }
        cells++;
      }
    }
    assertThat(cells).isEqualTo(6 * 31 - 82);
    assertThat(state()).isEqualTo(before);
  }
}
