package dev.agentauth.server.http;

import static dev.agentauth.model.ApiKeyRole.Known.AGENT;
import static dev.agentauth.model.ApiKeyRole.Known.APP;
import static dev.agentauth.model.ApiKeyRole.Known.APPROVER;
import static dev.agentauth.model.ApiKeyRole.Known.AUDITOR;
import static dev.agentauth.model.ApiKeyRole.Known.FULL;
import static dev.agentauth.model.ApiKeyRole.Known.TOOL_SERVER;
import static dev.agentauth.server.http.Route.Access.ADMIN;
import static dev.agentauth.server.http.Route.Access.API_KEY;
import static dev.agentauth.server.http.Route.Access.METRICS;
import static dev.agentauth.server.http.Route.Access.PUBLIC;
import static io.javalin.http.HandlerType.DELETE;
import static io.javalin.http.HandlerType.GET;
import static io.javalin.http.HandlerType.POST;
import static io.javalin.http.HandlerType.PUT;

import dev.agentauth.model.ApiKeyRole;
import io.javalin.http.HandlerType;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Every endpoint of the server in one list: method, path, who may call it, handler. {@link Api}
 * registers exactly these rows and enforces their {@link Route.Access} and API key roles
 * (decisions.md §15) before any handler runs.
 */
final class RouteTable {
  private RouteTable() {}

  /** Every role: reads of authorizations and receipts, and a key's own record. */
  private static final Set<ApiKeyRole.Known> ANY = EnumSet.allOf(ApiKeyRole.Known.class);

  /** Writes an application makes: granting, bundles, tombstones. */
  private static final Set<ApiKeyRole.Known> APP_WRITES = EnumSet.of(FULL, APP);

  /** Checks: the application and the agent's host (decisions.md §15, §19). */
  private static final Set<ApiKeyRole.Known> CHECKS = EnumSet.of(FULL, APP, AGENT, TOOL_SERVER);

  /**
   * Answering a confirmation: the application, and a tool server relaying the user's own answer
   * from the user's client (decisions.md §19); never an {@code agent} key.
   */
  private static final Set<ApiKeyRole.Known> CONFIRMS = EnumSet.of(FULL, APP, TOOL_SERVER);

  /** Reads of escalations. */
  private static final Set<ApiKeyRole.Known> ESCALATION_READS =
      EnumSet.of(FULL, APP, APPROVER, AUDITOR);

  /** Reads of bundles and tombstones. */
  private static final Set<ApiKeyRole.Known> APP_READS = EnumSet.of(FULL, APP, AUDITOR);

  private static final Set<ApiKeyRole.Known> FULL_ONLY = EnumSet.of(FULL);

  static List<Route> routes(
      HealthHandlers health,
      OpenApiDocument openApi,
      V1Handlers v1,
      WebhookHandlers webhooks,
      LogHandlers log,
      AdminHandlers admin) {
    return List.of(
        open(GET, "/healthz", PUBLIC, health::live),
        open(GET, "/readyz", PUBLIC, health::ready),
        open(GET, "/metrics", METRICS, health::metrics),
        // the contract: src/main/resources/openapi.json, kept equal to this table by a test
        open(GET, "/openapi.json", PUBLIC, openApi::serve),
        // authorizations
        keyed(POST, "/v1/authorizations", APP_WRITES, v1::createAuthorization),
        keyed(GET, "/v1/authorizations", ANY, v1::listAuthorizations),
        keyed(GET, "/v1/authorizations/{id}", ANY, v1::getAuthorization),
        keyed(DELETE, "/v1/authorizations/{id}", APP_WRITES, v1::revokeAuthorization),
        // decisions
        keyed(POST, "/v1/check", CHECKS, v1::check),
        keyed(POST, "/v1/confirmations/{nonce}", CONFIRMS, v1::confirm),
        keyed(
            POST,
            "/v1/escalations/{id}/resolve",
            EnumSet.of(FULL, APPROVER),
            v1::resolveEscalation),
        keyed(GET, "/v1/escalations", ESCALATION_READS, v1::listEscalations),
        keyed(GET, "/v1/escalations/{id}", ESCALATION_READS, v1::getEscalation),
        // bundles and tombstones
        keyed(POST, "/v1/agent-scope-bundles", APP_WRITES, v1::createBundle),
        keyed(GET, "/v1/agent-scope-bundles", APP_READS, v1::listBundles),
        keyed(GET, "/v1/agent-scope-bundles/{id}", APP_READS, v1::getBundle),
        keyed(PUT, "/v1/agent-scope-bundles/{id}", APP_WRITES, v1::editBundle),
        keyed(DELETE, "/v1/agent-scope-bundles/{id}", APP_WRITES, v1::deleteBundle),
        keyed(POST, "/v1/tombstones", APP_WRITES, v1::createTombstone),
        keyed(GET, "/v1/tombstones", APP_READS, v1::listTombstones),
        // receipts and keys
        keyed(GET, "/v1/receipts", ANY, v1::listReceipts),
        keyed(GET, "/v1/receipts/{id}", ANY, v1::getReceipt),
        open(GET, "/v1/workspaces/{id}/keys", PUBLIC, v1::workspaceKeys),
        // the receipt log (decisions.md §18)
        open(GET, "/v1/workspaces/{id}/log/checkpoint", PUBLIC, log::checkpoint),
        open(POST, "/v1/workspaces/{id}/log/cosignatures", PUBLIC, log::cosign),
        keyed(GET, "/v1/log/entries", ANY, log::entries),
        keyed(GET, "/v1/log/proof/inclusion", ANY, log::inclusion),
        keyed(GET, "/v1/log/proof/consistency", ANY, log::consistency),
        keyed(GET, "/v1/log/witnesses", ANY, log::witnesses),
        keyed(PUT, "/v1/log/witnesses", FULL_ONLY, log::setWitnesses),
        // API keys
        keyed(POST, "/v1/api-keys", FULL_ONLY, v1::createApiKey),
        keyed(GET, "/v1/api-keys", FULL_ONLY, v1::listApiKeys),
        keyed(GET, "/v1/api-keys/current", ANY, v1::currentApiKey),
        keyed(DELETE, "/v1/api-keys/{key_id}", FULL_ONLY, v1::revokeApiKey),
        // webhooks (decisions.md §20): an application's, not an auditor's
        keyed(POST, "/v1/webhooks", APP_WRITES, webhooks::create),
        keyed(GET, "/v1/webhooks", APP_WRITES, webhooks::list),
        keyed(DELETE, "/v1/webhooks/{id}", APP_WRITES, webhooks::delete),
        keyed(GET, "/v1/webhooks/{id}/deliveries", APP_WRITES, webhooks::deliveries),
        // operator
        open(POST, "/admin/v1/workspaces", ADMIN, admin::createWorkspace),
        open(POST, "/admin/v1/workspaces/{id}/api-keys", ADMIN, admin::createApiKey),
        open(GET, "/admin/v1/workspaces/{id}/api-keys", ADMIN, admin::listApiKeys),
        open(DELETE, "/admin/v1/workspaces/{id}/api-keys/{key_id}", ADMIN, admin::revokeApiKey),
        open(POST, "/admin/v1/workspaces/{id}/signing-keys/rotate", ADMIN, admin::rotate),
        open(POST, "/admin/v1/clock", ADMIN, admin::clock));
  }

  /** What a role may call, for the detail of a 403: the role's row of decisions.md §15's table. */
  static String mayCall(ApiKeyRole.Known role) {
    return switch (role) {
      case FULL -> "everything under /v1";
      case APP -> "everything under /v1 except resolving escalations and managing API keys";
      case AGENT -> "POST /v1/check, and GET on /v1/authorizations and /v1/receipts";
      case TOOL_SERVER ->
          "POST /v1/check, POST /v1/confirmations/{nonce}, and GET on /v1/authorizations and"
              + " /v1/receipts";
      case APPROVER ->
          "GET and resolve on /v1/escalations, and GET on /v1/authorizations and /v1/receipts";
      case AUDITOR -> "every GET under /v1 except the API key list and webhooks";
    };
  }

  private static Route keyed(
      HandlerType method, String path, Set<ApiKeyRole.Known> roles, Route.Handler handler) {
    return new Route(method, path, API_KEY, roles, handler);
  }

  private static Route open(
      HandlerType method, String path, Route.Access access, Route.Handler handler) {
    return new Route(method, path, access, Set.of(), handler);
  }
}
