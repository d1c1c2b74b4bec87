package dev.agentauth.verifier.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.verifier.log.LogVerificationException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * The receipt log's endpoints on one server for one workspace, fetched under {@link KeysFetcher}'s
 * rules (https only except to loopback, no redirect, bounded body, timeouts). The checkpoint and
 * the cosignature endpoints are public; proofs and entries need an API key, sent as {@code
 * Authorization: Bearer}. Every failure is an {@link InputException} with a one-line message; what
 * the server answers is checked by the caller.
 */
final class LogClient {

  private static final ObjectMapper MAPPER = new ObjectMapper();

  /** Most entries one page asks for (the server's limit). */
  static final int PAGE = 1000;

  private final String baseUrl;
  private final String workspace;
  private final String apiKey;
  private final KeysFetcher fetcher;

  /**
   * @param baseUrl the server's base URL ({@code --log-url})
   * @param workspace the workspace whose log this is
   * @param apiKey the API key, or {@code null} when none was given
   */
  LogClient(String baseUrl, String workspace, String apiKey, KeysFetcher fetcher)
      throws InputException {
    this.baseUrl = baseUrl;
    this.workspace = workspace;
    this.apiKey = apiKey;
    this.fetcher = fetcher;
    KeysFetcher.endpoint(baseUrl, "--log-url", "/");
  }

  boolean hasApiKey() {
    return apiKey != null;
  }

  /**
   * The newest checkpoint as a signed note with its cosignatures, or with {@code cosigned > 0} the
   * newest with at least that many cosignatures.
   */
  String checkpoint(int cosigned) throws InputException {
    String path =
        "/v1/workspaces/"
            + KeysFetcher.encodeSegment(workspace)
            + "/log/checkpoint"
            + (cosigned > 0 ? "?cosigned=" + cosigned : "");
    URI uri = uri(path);
    KeysFetcher.Response r =
        send(fetcher.request(uri).header("Accept", "text/plain").GET().build());
    if (r.status() == 404) {
      throw new InputException(
          "GET "
              + uri
              + " returned HTTP 404: "
              + (cosigned > 0
                  ? "no checkpoint with " + cosigned + " cosignatures yet (or an empty log)"
                  : "the log is empty or the workspace unknown")
              + detail(r));
    }
    requireOk(uri, r);
    return r.body();
  }

  /** The consistency proof from size {@code from} to size {@code to}. */
  List<byte[]> consistency(long from, long to) throws InputException {
    JsonNode body = getJson("/v1/log/proof/consistency?from=" + from + "&to=" + to);
    return hashes(body, "consistency proof");
  }

  /**
   * An inclusion proof.
   *
   * @param index the leaf index the server gives
   * @param hashes the proof
   */
  record Inclusion(long index, List<byte[]> hashes) {}

  /** The inclusion proof of {@code receiptId} in the tree of {@code treeSize} leaves. */
  Inclusion inclusion(String receiptId, long treeSize) throws InputException {
    JsonNode body =
        getJson(
            "/v1/log/proof/inclusion?receipt_id="
                + KeysFetcher.encodeSegment(receiptId)
                + "&tree_size="
                + treeSize);
    JsonNode index = body.get("log_index");
    JsonNode size = body.get("tree_size");
    if (index == null || !index.canConvertToLong() || index.asLong() < 0) {
      throw new InputException("inclusion proof for " + receiptId + " has no valid log_index");
    }
    if (size == null || size.asLong() != treeSize) {
      throw new InputException(
          "inclusion proof for " + receiptId + " is not for tree size " + treeSize);
    }
    return new Inclusion(index.asLong(), hashes(body, "inclusion proof"));
  }

  /**
   * One page of entries.
   *
   * @param treeSize the server's current size
   * @param receipts the signed receipts from {@code start}, in log order
   */
  record Entries(long treeSize, List<JsonNode> receipts) {}

  /** The entries from {@code start}, at most {@link #PAGE}. */
  Entries entries(long start) throws InputException {
    JsonNode body = getJson("/v1/log/entries?start=" + start + "&limit=" + PAGE);
    JsonNode size = body.get("tree_size");
    JsonNode entries = body.get("entries");
    if (size == null || !size.canConvertToLong() || entries == null || !entries.isArray()) {
      throw new InputException("log entries answer has no tree_size or entries");
    }
    List<JsonNode> receipts = new ArrayList<>(entries.size());
    for (int i = 0; i < entries.size(); i++) {
      JsonNode e = entries.get(i);
      JsonNode index = e.get("log_index");
      JsonNode receipt = e.get("receipt");
      if (index == null || !index.canConvertToLong() || receipt == null || !receipt.isObject()) {
        throw new InputException(
            "log entries answer: entry " + i + " has no log_index or no receipt object");
      }
      if (index.asLong() != start + i) {
        // The server numbers its own entries out of order or with a hole: a receipt it logged is
        // not served any more (deleted or moved), which is evidence, not bad input.
        throw new LogVerificationException(
            "LOG ENTRY MISSING: the log's entries skip or reorder log_index "
                + (start + i)
                + " (the server sent log_index "
                + index.asLong()
                + " in its place): a logged receipt is no longer served as it was");
      }
      receipts.add(receipt);
    }
    return new Entries(size.asLong(), receipts);
  }

  /** Posts cosignatures; returns how many the server accepted. */
  int postCosignatures(String body) throws InputException {
    URI uri = uri("/v1/workspaces/" + KeysFetcher.encodeSegment(workspace) + "/log/cosignatures");
    HttpRequest request =
        fetcher
            .request(uri)
            .header("Content-Type", "text/plain; charset=utf-8")
            .header("Accept", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
            .build();
    KeysFetcher.Response r = send(request);
    requireOk(uri, r);
    JsonNode json = parse(uri, r.body());
    return json.path("accepted").asInt(0);
  }

  private JsonNode getJson(String pathAndQuery) throws InputException {
    if (apiKey == null) {
      throw new InputException(
          "an API key is needed for "
              + pathAndQuery.substring(0, pathAndQuery.indexOf('?'))
              + ": set AGENTAUTH_API_KEY or pass --api-key-file FILE");
    }
    URI uri = uri(pathAndQuery);
    KeysFetcher.Response r =
        send(
            fetcher
                .request(uri)
                .header("Accept", "application/json")
                .header("Authorization", "Bearer " + apiKey)
                .GET()
                .build());
    requireOk(uri, r);
    return parse(uri, r.body());
  }

  private KeysFetcher.Response send(HttpRequest request) throws InputException {
    return fetcher.send(
        request, "the log's answer", "give the server's final base URL as --log-url");
  }

  private URI uri(String pathAndQuery) throws InputException {
    return KeysFetcher.endpoint(baseUrl, "--log-url", pathAndQuery);
  }

  private static void requireOk(URI uri, KeysFetcher.Response r) throws InputException {
    if (r.status() != 200) {
      throw new InputException(
          uri.getRawPath() + " returned HTTP " + r.status() + " (expected 200)" + detail(r));
    }
  }

  /** The problem's {@code detail}, when the body is problem JSON, as {@code : detail}. */
  private static String detail(KeysFetcher.Response r) {
    try {
      JsonNode json = MAPPER.readTree(r.body());
      if (json != null && json.path("detail").isTextual()) {
        String d = json.get("detail").textValue();
        return ": " + Reports.safe(d.length() > 300 ? d.substring(0, 300) + "..." : d);
      }
    } catch (IOException e) {
      // Not JSON: no detail.
    }
    return "";
  }

  private static JsonNode parse(URI uri, String body) throws InputException {
    try {
      JsonNode json = MAPPER.readTree(body);
      if (json == null || !json.isObject()) {
        throw new InputException(uri.getRawPath() + " did not answer a JSON object");
      }
      return json;
    } catch (IOException e) {
      throw new InputException(uri.getRawPath() + " did not answer JSON");
    }
  }

  private static List<byte[]> hashes(JsonNode body, String what) throws InputException {
    JsonNode hashes = body.get("hashes");
    if (hashes == null || !hashes.isArray() || hashes.size() > 130) {
      throw new InputException(what + ": hashes must be an array of at most 130 base64 hashes");
    }
    List<byte[]> out = new ArrayList<>(hashes.size());
    for (JsonNode h : hashes) {
      byte[] bytes = null;
      if (h.isTextual()) {
        try {
          bytes = Base64.getDecoder().decode(h.textValue());
        } catch (IllegalArgumentException e) {
          bytes = null;
        }
      }
      if (bytes == null || bytes.length != 32) {
        throw new InputException(what + ": every hash must be 32 bytes in base64");
      }
      out.add(bytes);
    }
    return out;
  }
}
