package dev.agentauth.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.server.FuzzRequests.Known;
import dev.agentauth.server.FuzzRequests.Route;
import dev.agentauth.server.FuzzRequests.Template;
import dev.agentauth.server.ServerHarness.Resp;
import dev.agentauth.server.http.Api;
import dev.agentauth.verifier.ReceiptVerifier;
import dev.agentauth.verifier.VerificationResult;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Errors everywhere (decisions.md §16), as a property: ten thousand generated requests across every
 * route, most of them broken somewhere (request line, headers, framing, path ids, query, JSON body)
 * and a quarter valid, sent over raw sockets to one server on the store under test. Every answer is
 * below 500; every 4xx is problem+json with a {@code code}; and at the end the workspace's receipts
 * are exactly those that 2xx answers acknowledged, each signed and valid.
 *
 * <p>Seeded: the same seed sends the same requests in the same order (ids the server hands out
 * differ, the choices among them do not). The seed is printed at the start and can be set with
 * {@code -Dfuzz.seed=N}; a failure names the seed, the request's number and the request. The
 * generators are {@link Gen}, a small seeded generator of this test's own (no property-testing
 * library: jqwik, the obvious one, asks AI agents not to use it, and this project respects that).
 */
class HttpFuzzIT {
  static final long SEED = Long.getLong("fuzz.seed", 1716);
  static final int TRIES = 10_000;

  private static ServerHarness h;
  private static RawHttp raw;
  private static final Known known = new Known();
  private static final Set<String> acknowledged = new HashSet<>();
  private static final Map<Integer, Integer> statuses = new TreeMap<>();
  private static final ObjectMapper mapper = new ObjectMapper();
  private static int valid;
  private static long exchangeNanos;
  private static long started;

  @BeforeAll
  static void start() {
    h = ServerHarness.start();
    raw = new RawHttp(h.server.port());
    // Every endpoint of the route table is fuzzed, with the caller it expects.
    Set<String> fuzzed = new TreeSet<>();
    for (Route r : Route.values()) {
      if (r != Route.NOWHERE) {
        fuzzed.add(r.method + " " + r.path.replaceAll("\\{[^}]*}", "{}") + " " + r.caller);
      }
    }
    Set<String> served = new TreeSet<>();
    for (Api.Endpoint e : h.server.endpoints()) {
      String caller =
          switch (e.access()) {
            case "PUBLIC" -> "NONE";
            case "API_KEY" -> "API";
            default -> e.access();
          };
      served.add(e.method() + " " + e.path().replaceAll("\\{[^}]*}", "{}") + " " + caller);
    }
    assertThat(fuzzed).isEqualTo(served);
    started = System.nanoTime();
    System.out.printf("HttpFuzzIT: seed %s, %d requests, store %s%n", SEED, TRIES, TestStores.KIND);
  }

  @AfterAll
  static void stop() {
    if (h != null) {
      h.close();
    }
  }

  @Test
  void everyAnswerIsASuccessOrAProblemWithACodeAndTheReceiptsAreTheAcknowledgedOnes() {
    Gen<Template> requests = FuzzRequests.requests();
    SplittableRandom random = new SplittableRandom(SEED);
    for (int i = 0; i < TRIES; i++) {
      Template t = requests.next(random);
      try {
        send(t);
      } catch (AssertionError e) {
        throw new AssertionError(
            "request " + i + " of seed " + SEED + " (-Dfuzz.seed=" + SEED + "): " + t, e);
      }
    }
    theReceiptsAreExactlyTheAcknowledgedOnesAllSignedAndValid();
  }

  private static void send(Template t) {
    byte[] request = t.render(known, h.apiKey(), ServerHarness.ADMIN_TOKEN);
    long t0 = System.nanoTime();
    List<RawHttp.Response> answers = raw.exchange(request, t.method().equals("HEAD"));
    exchangeNanos += System.nanoTime() - t0;

    assertThat(answers).as("no answer to %s", t).isNotEmpty();
    for (RawHttp.Response r : answers) {
      statuses.merge(r.status(), 1, Integer::sum);
      assertThat(r.malformed()).as("%s answered %s", t, r.text()).isNull();
      // Nothing the server says, or stored and now echoes, holds bytes or strings that are not
      // Unicode.
      assertThat(validUtf8(r.body())).as("%s answered %s", t, r.text()).isTrue();
      // The one 5xx of §16: a request in an HTTP version the server does not speak.
      if (r.status() != 505) {
        assertThat(r.status()).as("%s answered %s", t, r.text()).isBetween(200, 499);
      }
      if (r.status() >= 400) {
        if (r.status() == 505) {
          assertThat(json(r).path("code").asText()).isEqualTo("http_version_not_supported");
        }
        assertThat(r.header("Content-Type"))
            .as("%s answered %d %s", t, r.status(), r.text())
            .startsWith("application/problem+json");
        if (!t.method().equals("HEAD")) {
          JsonNode problem = json(r);
          assertThat(problem.path("code").asText(""))
              .as("%s answered %s", t, r.text())
              .isNotEmpty();
          assertThat(problem.path("status").asInt()).as(r.text()).isEqualTo(r.status());
        }
      }
    }
    RawHttp.Response first = answers.get(0);
    if (first.status() < 300 && isMutating(t.method()) && first.body().length > 0) {
      JsonNode body = json(first);
      Set<String> ids = new HashSet<>();
      FuzzRequests.receiptIds(body, ids);
      acknowledged.addAll(ids);
      ids.forEach(id -> Known.add(known.receipts, id));
      if (t.valid()) {
        valid++;
        remember(t.route(), body);
      }
    }
  }

  /** Whether {@code bytes} are UTF-8 and, when JSON, every string in them is Unicode. */
  private static boolean validUtf8(byte[] bytes) {
    try {
      StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes));
    } catch (CharacterCodingException e) {
      return false;
    }
    JsonNode tree;
    try {
      tree = mapper.readTree(bytes);
    } catch (IOException notJson) {
      return true;
    }
    return tree == null || unicode(tree);
  }

  private static boolean unicode(JsonNode n) {
    if (n.isTextual()) {
      return unicode(n.textValue());
    }
    for (Map.Entry<String, JsonNode> e : n.properties()) {
      if (!unicode(e.getKey()) || !unicode(e.getValue())) {
        return false;
      }
    }
    if (n.isArray()) {
      for (JsonNode c : n) {
        if (!unicode(c)) {
          return false;
        }
      }
    }
    return true;
  }

  private static boolean unicode(String s) {
    return s.codePoints().noneMatch(c -> c >= 0xd800 && c <= 0xdfff);
  }

  private static boolean isMutating(String method) {
    return method.equals("POST") || method.equals("PUT") || method.equals("DELETE");
  }

  private static JsonNode json(RawHttp.Response r) {
    try {
      return mapper.readTree(r.body());
    } catch (IOException e) {
      throw new AssertionError("not JSON: " + r.text(), e);
    }
  }

  /** Keeps the ids a valid request created, for later requests to act on. */
  private static void remember(Route route, JsonNode body) {
    switch (route) {
      case AUTH_CREATE -> Known.add(known.auths, body.path("authorization_id").asText(null));
      case BUNDLE_CREATE -> Known.add(known.bundles, body.path("id").asText(null));
      case ADMIN_WORKSPACE -> Known.add(known.workspaces, body.path("workspace_id").asText(null));
      case API_KEY_CREATE, ADMIN_API_KEY ->
          Known.add(known.apiKeys, body.path("key_id").asText(null));
      case CHECK ->
          body.path("results")
              .forEach(
                  result -> {
                    Known.add(known.nonces, result.path("confirm_nonce").asText(null));
                    Known.add(known.escalations, result.path("escalation_id").asText(null));
                  });
      default -> {}
    }
  }

  private static void theReceiptsAreExactlyTheAcknowledgedOnesAllSignedAndValid() {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (h.server.signingBacklog() > 0 && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    List<String> listed = new ArrayList<>();
    String cursor = null;
    do {
      Resp page = h.get("/v1/receipts?limit=100" + (cursor == null ? "" : "&cursor=" + cursor));
      assertThat(page.status()).as(page.raw()).isEqualTo(200);
      page.body().path("receipts").forEach(s -> listed.add(s.path("receipt_id").asText()));
      cursor =
          page.body().path("has_more").asBoolean()
              ? page.body().path("next_cursor").asText()
              : null;
    } while (cursor != null);

    System.out.printf(
        "HttpFuzzIT: store %s, %d valid requests acknowledged, answers by status %s,"
            + " %d receipts, %.1f s (%.1f s waiting for answers)%n",
        TestStores.KIND,
        valid,
        statuses,
        listed.size(),
        (System.nanoTime() - started) / 1e9,
        exchangeNanos / 1e9);
    assertThat(listed).doesNotHaveDuplicates();
    assertThat(new HashSet<>(listed)).isEqualTo(acknowledged);
    assertThat(listed).as("the run made receipts").hasSizeGreaterThan(100);

    ReceiptVerifier verifier = h.verifier(h.workspaceId());
    for (String id : listed) {
      String receipt = h.signedReceipt(id).toString();
      VerificationResult result = verifier.verify(receipt);
      assertThat(result.valid()).as("receipt %s: %s", id, result).isTrue();
    }
  }
}
