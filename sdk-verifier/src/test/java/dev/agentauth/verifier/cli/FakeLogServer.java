package dev.agentauth.verifier.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.agentauth.verifier.Canonicalizer;
import dev.agentauth.verifier.log.Checkpoint;
import dev.agentauth.verifier.log.CosignatureSigner;
import dev.agentauth.verifier.log.NaiveMerkle;
import dev.agentauth.verifier.log.NoteSigner;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A receipt log server for the CLI tests on the loopback interface, serving the endpoints as the
 * agentauth server does, computed with {@link NaiveMerkle} (RFC 9162's recursive definitions) over
 * {@link #receipts}. Tests tamper with the receipts, the log key or the cosigners between runs.
 */
final class FakeLogServer implements AutoCloseable {

  static final String API_KEY = "ak_test_log";

  final HttpServer server;
  final String baseUrl;
  final String origin;

  /** The log's receipts in log order; tests change it (remove, replace, swap, truncate). */
  final List<ObjectNode> receipts = new CopyOnWriteArrayList<>();

  /** What the entries endpoint serves when set, instead of {@link #receipts}. */
  volatile List<ObjectNode> servedEntries;

  /** Signs checkpoints; the workspace's receipt-signing key by default. */
  volatile NoteSigner logSigner;

  /** Witnesses whose cosignature the served checkpoint carries. */
  final List<CosignatureSigner> cosigners = new CopyOnWriteArrayList<>();

  /** Bodies posted to the cosignatures endpoint. */
  final List<String> posted = new CopyOnWriteArrayList<>();

  /** Requests, as {@code METHOD path?query}. */
  final List<String> requests = new CopyOnWriteArrayList<>();

  FakeLogServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::handle);
    server.start();
    String host = "127.0.0.1:" + server.getAddress().getPort();
    baseUrl = "http://" + host;
    origin = Checkpoint.origin(host, CliFixtures.WORKSPACE);
    logSigner = NoteSigner.ed25519(origin, CliFixtures.seed(7));
  }

  /** Adds signed scope receipts {@code first..first+count-1}. */
  FakeLogServer add(int first, int count) {
    for (int i = first; i < first + count; i++) {
      receipts.add(CliFixtures.scope(String.format("01JLOG%020d", i), "11:00", "allow"));
    }
    return this;
  }

  List<byte[]> leaves() {
    List<byte[]> leaves = new ArrayList<>();
    for (ObjectNode r : receipts) {
      leaves.add(Canonicalizer.canonicalize(r));
    }
    return leaves;
  }

  Checkpoint checkpoint() {
    List<byte[]> leaves = leaves();
    return new Checkpoint(origin, leaves.size(), NaiveMerkle.mth(leaves));
  }

  /** The newest checkpoint as served: signed note and cosignature lines. */
  String note() {
    Checkpoint c = checkpoint();
    StringBuilder note = new StringBuilder(logSigner.sign(c.body()));
    for (CosignatureSigner w : cosigners) {
      note.append(w.cosign(c, 1_780_000_000L));
    }
    return note.toString();
  }

  private void handle(HttpExchange exchange) throws IOException {
    String path = exchange.getRequestURI().getRawPath();
    String query = exchange.getRequestURI().getRawQuery();
    requests.add(exchange.getRequestMethod() + " " + path + (query == null ? "" : "?" + query));
    Map<String, String> q = query(query);
    String ws = "/v1/workspaces/" + CliFixtures.WORKSPACE;
    boolean authorized =
        ("Bearer " + API_KEY).equals(exchange.getRequestHeaders().getFirst("Authorization"));
    try {
      switch (path) {
        case "/v1/workspaces/ws_cli/keys" -> send(exchange, 200, CliFixtures.keysDocument());
        case "/v1/workspaces/ws_cli/log/checkpoint" -> {
          if (receipts.isEmpty()) {
            send(exchange, 404, "{\"detail\":\"the log is empty\"}");
          } else {
            send(exchange, 200, note());
          }
        }
        case "/v1/workspaces/ws_cli/log/cosignatures" -> {
          posted.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
          send(exchange, 200, "{\"accepted\":1}");
        }
        case "/v1/log/proof/consistency", "/v1/log/proof/inclusion", "/v1/log/entries" -> {
          if (!authorized) {
            send(exchange, 401, "{\"detail\":\"send the API key\"}");
            return;
          }
          send(exchange, 200, CliFixtures.json(proofs(path, q)));
        }
        default -> send(exchange, 404, "{\"detail\":\"no route " + ws + "\"}");
      }
    } catch (IllegalStateException e) {
      send(exchange, 404, "{\"detail\":\"" + e.getMessage() + "\"}");
    } catch (RuntimeException e) {
      send(exchange, 400, "{\"detail\":\"" + e.getMessage() + "\"}");
    }
  }

  private JsonNode proofs(String path, Map<String, String> q) {
    List<byte[]> leaves = leaves();
    ObjectNode out = CliFixtures.MAPPER.createObjectNode();
    switch (path) {
      case "/v1/log/proof/consistency" -> {
        int from = Integer.parseInt(q.get("from"));
        int to = Integer.parseInt(q.get("to"));
        out.put("from", from).put("to", to);
        hashes(out, NaiveMerkle.proof(from, leaves.subList(0, to)));
      }
      case "/v1/log/proof/inclusion" -> {
        int size = Integer.parseInt(q.get("tree_size"));
        int index = -1;
        for (int i = 0; i < size; i++) {
          if (receipts.get(i).get("receipt_id").asText().equals(q.get("receipt_id"))) {
            index = i;
          }
        }
        if (index < 0) {
          throw new IllegalStateException("not in the log");
        }
        out.put("log_index", index).put("tree_size", size);
        hashes(out, NaiveMerkle.path(index, leaves.subList(0, size)));
      }
      default -> {
        int start = Integer.parseInt(q.get("start"));
        int limit = Integer.parseInt(q.get("limit"));
        List<ObjectNode> served = servedEntries != null ? servedEntries : receipts;
        out.put("tree_size", served.size());
        ArrayNode entries = out.putArray("entries");
        for (int i = start; i < Math.min(served.size(), start + limit); i++) {
          entries.addObject().put("log_index", i).set("receipt", served.get(i));
        }
      }
    }
    return out;
  }

  private static void hashes(ObjectNode out, List<byte[]> hashes) {
    ArrayNode array = out.putArray("hashes");
    hashes.forEach(h -> array.add(Base64.getEncoder().encodeToString(h)));
  }

  private static Map<String, String> query(String query) {
    Map<String, String> q = new HashMap<>();
    if (query != null) {
      for (String pair : query.split("&")) {
        int eq = pair.indexOf('=');
        q.put(
            pair.substring(0, eq),
            URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    return q;
  }

  private static void send(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
