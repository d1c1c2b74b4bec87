package dev.agentauth.server.http;

import static dev.agentauth.server.http.Route.Access.ADMIN;
import static dev.agentauth.server.http.Route.Access.API_KEY;
import static dev.agentauth.server.http.Route.Access.PUBLIC;
import static io.javalin.http.HandlerType.DELETE;
import static io.javalin.http.HandlerType.GET;
import static io.javalin.http.HandlerType.POST;
import static io.javalin.http.HandlerType.PUT;

import java.util.List;

/**
 * Every endpoint of the server in one list: method, path, who may call it, handler. {@link Api}
 * registers exactly these rows and enforces their {@link Route.Access} before any handler runs.
 */
final class RouteTable {
  private RouteTable() {}

  static List<Route> routes(HealthHandlers health, V1Handlers v1, AdminHandlers admin) {
    return List.of(
        new Route(GET, "/healthz", PUBLIC, health::live),
        new Route(GET, "/readyz", PUBLIC, health::ready),
        new Route(GET, "/metrics", PUBLIC, health::metrics),
        // authorizations
        new Route(POST, "/v1/authorizations", API_KEY, v1::createAuthorization),
        new Route(GET, "/v1/authorizations", API_KEY, v1::listAuthorizations),
        new Route(GET, "/v1/authorizations/{id}", API_KEY, v1::getAuthorization),
        new Route(DELETE, "/v1/authorizations/{id}", API_KEY, v1::revokeAuthorization),
        // decisions
        new Route(POST, "/v1/check", API_KEY, v1::check),
        new Route(POST, "/v1/confirmations/{nonce}", API_KEY, v1::confirm),
        new Route(POST, "/v1/escalations/{id}/resolve", API_KEY, v1::resolveEscalation),
        new Route(GET, "/v1/escalations", API_KEY, v1::listEscalations),
        new Route(GET, "/v1/escalations/{id}", API_KEY, v1::getEscalation),
        // bundles and tombstones
        new Route(POST, "/v1/agent-scope-bundles", API_KEY, v1::createBundle),
        new Route(GET, "/v1/agent-scope-bundles", API_KEY, v1::listBundles),
        new Route(GET, "/v1/agent-scope-bundles/{id}", API_KEY, v1::getBundle),
        new Route(PUT, "/v1/agent-scope-bundles/{id}", API_KEY, v1::editBundle),
        new Route(DELETE, "/v1/agent-scope-bundles/{id}", API_KEY, v1::deleteBundle),
        new Route(POST, "/v1/tombstones", API_KEY, v1::createTombstone),
        new Route(GET, "/v1/tombstones", API_KEY, v1::listTombstones),
        // receipts and keys
        new Route(GET, "/v1/receipts", API_KEY, v1::listReceipts),
        new Route(GET, "/v1/receipts/{id}", API_KEY, v1::getReceipt),
        new Route(GET, "/v1/workspaces/{id}/keys", PUBLIC, v1::workspaceKeys),
        // operator
        new Route(POST, "/admin/v1/workspaces", ADMIN, admin::createWorkspace),
        new Route(POST, "/admin/v1/workspaces/{id}/api-keys", ADMIN, admin::issueApiKey),
        new Route(POST, "/admin/v1/workspaces/{id}/signing-keys/rotate", ADMIN, admin::rotate),
        new Route(POST, "/admin/v1/clock", ADMIN, admin::clock));
  }
}
