package dev.agentauth.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Generators of HTTP requests for {@link HttpFuzzIT}: for every route of the server, a valid
 * request (so that work gets done and receipts exist) or one broken in any of its parts — method,
 * request target, path id, query, HTTP version, headers, body framing, and the JSON body (wrong
 * types, missing and unknown fields, deep nesting, huge numbers, unpaired surrogates, bad UTF-8,
 * truncated text).
 *
 * <p>A request is a {@link Template}: its text may hold placeholders ({@code @AUTH@},
 * {@code @NONCE@}...) that {@link Template#render} replaces with ids the server handed out earlier,
 * so a valid request can act on a real authorization. Bodies are kept as ISO-8859-1 strings, one
 * char per byte, so that any byte sequence can be sent.
 */
final class FuzzRequests {
  private FuzzRequests() {}

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final List<String> SCOPES =
      List.of("mail.send", "crm.read", "files.write", "pay.send");

  /** Who a route expects: nobody, a workspace API key, or the admin token. */
  enum Caller {
    NONE,
    METRICS,
    API,
    ADMIN
  }

  /** The body a route reads. */
  enum BodyKind {
    NONE,
    CREATE_AUTH,
    REVOKE,
    CHECK,
    CONFIRM,
    RESOLVE,
    BUNDLE,
    BUNDLE_EDIT,
    EMPTY,
    TOMBSTONE,
    CREATE_WS,
    CLOCK,
    API_KEY,
    WEBHOOK
  }

  /** Every route of {@code Api}, plus a path nobody serves. */
  enum Route {
    HEALTH("GET", "/healthz", Caller.NONE, BodyKind.NONE, 2),
    READY("GET", "/readyz", Caller.NONE, BodyKind.NONE, 2),
    METRICS("GET", "/metrics", Caller.METRICS, BodyKind.NONE, 1),
    OPENAPI("GET", "/openapi.json", Caller.NONE, BodyKind.NONE, 1),
    AUTH_CREATE("POST", "/v1/authorizations", Caller.API, BodyKind.CREATE_AUTH, 16),
    AUTH_LIST("GET", "/v1/authorizations", Caller.API, BodyKind.NONE, 4),
    AUTH_GET("GET", "/v1/authorizations/{AUTH}", Caller.API, BodyKind.NONE, 4),
    AUTH_REVOKE("DELETE", "/v1/authorizations/{AUTH}", Caller.API, BodyKind.REVOKE, 4),
    CHECK("POST", "/v1/check", Caller.API, BodyKind.CHECK, 24),
    CONFIRM("POST", "/v1/confirmations/{NONCE}", Caller.API, BodyKind.CONFIRM, 6),
    ESC_RESOLVE("POST", "/v1/escalations/{ESC}/resolve", Caller.API, BodyKind.RESOLVE, 6),
    ESC_LIST("GET", "/v1/escalations", Caller.API, BodyKind.NONE, 3),
    ESC_GET("GET", "/v1/escalations/{ESC}", Caller.API, BodyKind.NONE, 3),
    BUNDLE_CREATE("POST", "/v1/agent-scope-bundles", Caller.API, BodyKind.BUNDLE, 6),
    BUNDLE_LIST("GET", "/v1/agent-scope-bundles", Caller.API, BodyKind.NONE, 3),
    BUNDLE_GET("GET", "/v1/agent-scope-bundles/{BUNDLE}", Caller.API, BodyKind.NONE, 3),
    BUNDLE_EDIT("PUT", "/v1/agent-scope-bundles/{BUNDLE}", Caller.API, BodyKind.BUNDLE_EDIT, 5),
    BUNDLE_DELETE("DELETE", "/v1/agent-scope-bundles/{BUNDLE}", Caller.API, BodyKind.EMPTY, 3),
    TOMBSTONE_CREATE("POST", "/v1/tombstones", Caller.API, BodyKind.TOMBSTONE, 5),
    TOMBSTONE_LIST("GET", "/v1/tombstones", Caller.API, BodyKind.NONE, 3),
    RECEIPT_LIST("GET", "/v1/receipts", Caller.API, BodyKind.NONE, 5),
    RECEIPT_GET("GET", "/v1/receipts/{RECEIPT}", Caller.API, BodyKind.NONE, 4),
    KEYS("GET", "/v1/workspaces/{WS}/keys", Caller.NONE, BodyKind.NONE, 3),
    LOG_CHECKPOINT("GET", "/v1/workspaces/{WS}/log/checkpoint", Caller.NONE, BodyKind.NONE, 2),
    LOG_COSIGN("POST", "/v1/workspaces/{WS}/log/cosignatures", Caller.NONE, BodyKind.EMPTY, 1),
    LOG_ENTRIES("GET", "/v1/log/entries", Caller.API, BodyKind.NONE, 2),
    LOG_INCLUSION("GET", "/v1/log/proof/inclusion", Caller.API, BodyKind.NONE, 2),
    LOG_CONSISTENCY("GET", "/v1/log/proof/consistency", Caller.API, BodyKind.NONE, 1),
    LOG_WITNESSES("GET", "/v1/log/witnesses", Caller.API, BodyKind.NONE, 1),
    LOG_WITNESSES_SET("PUT", "/v1/log/witnesses", Caller.API, BodyKind.EMPTY, 1),
    ADMIN_WORKSPACE("POST", "/admin/v1/workspaces", Caller.ADMIN, BodyKind.CREATE_WS, 4),
    API_KEY_CREATE("POST", "/v1/api-keys", Caller.API, BodyKind.API_KEY, 3),
    API_KEY_LIST("GET", "/v1/api-keys", Caller.API, BodyKind.NONE, 2),
    API_KEY_CURRENT("GET", "/v1/api-keys/current", Caller.API, BodyKind.NONE, 2),
    API_KEY_REVOKE("DELETE", "/v1/api-keys/{KEY}", Caller.API, BodyKind.EMPTY, 2),
    WEBHOOK_CREATE("POST", "/v1/webhooks", Caller.API, BodyKind.WEBHOOK, 2),
    WEBHOOK_LIST("GET", "/v1/webhooks", Caller.API, BodyKind.NONE, 1),
    WEBHOOK_DELETE("DELETE", "/v1/webhooks/{HOOK}", Caller.API, BodyKind.EMPTY, 1),
    WEBHOOK_DELIVERIES("GET", "/v1/webhooks/{HOOK}/deliveries", Caller.API, BodyKind.NONE, 1),
    ADMIN_API_KEY("POST", "/admin/v1/workspaces/{WS}/api-keys", Caller.ADMIN, BodyKind.API_KEY, 3),
    ADMIN_API_KEY_LIST("GET", "/admin/v1/workspaces/{WS}/api-keys", Caller.ADMIN, BodyKind.NONE, 2),
    ADMIN_API_KEY_REVOKE(
        "DELETE", "/admin/v1/workspaces/{WS}/api-keys/{KEY}", Caller.ADMIN, BodyKind.EMPTY, 2),
    ADMIN_ROTATE(
        "POST", "/admin/v1/workspaces/{WS}/signing-keys/rotate", Caller.ADMIN, BodyKind.NONE, 1),
    ADMIN_CLOCK("POST", "/admin/v1/clock", Caller.ADMIN, BodyKind.CLOCK, 4),
    NOWHERE("GET", "/v1/nothing-here", Caller.API, BodyKind.NONE, 2);

    final String method;
    final String path;
    final Caller caller;
    final BodyKind body;
    final int weight;

    Route(String method, String path, Caller caller, BodyKind body, int weight) {
      this.method = method;
      this.path = path;
      this.caller = caller;
      this.body = body;
      this.weight = weight;
    }

    boolean mutating() {
      return !method.equals("GET");
    }
  }

  /** How the body is delimited on the wire. */
  enum FramingKind {
    LENGTH,
    NONE,
    SHORT,
    LONG,
    JUNK,
    CHUNKED,
    CHUNKED_BAD,
    BOTH,
    TWO_LENGTHS
  }

  record Framing(FramingKind kind, int n, String junk) {
    static final Framing LENGTH = new Framing(FramingKind.LENGTH, 0, "");
  }

  /** Ids the server has handed out, for placeholders; each list keeps its latest 64. */
  static final class Known {
    final List<String> auths = new ArrayList<>();
    final List<String> nonces = new ArrayList<>();
    final List<String> escalations = new ArrayList<>();
    final List<String> bundles = new ArrayList<>();
    final List<String> receipts = new ArrayList<>();
    final List<String> workspaces = new ArrayList<>(List.of("ws_local"));
    final List<String> apiKeys = new ArrayList<>();

    static void add(List<String> list, String id) {
      if (id != null && !id.isEmpty() && !list.contains(id)) {
        list.add(id);
        if (list.size() > 64) {
          list.remove(0);
        }
      }
    }

    private static String pick(List<String> list, int pick, String none) {
      return list.isEmpty() ? none : list.get(Math.floorMod(pick, list.size()));
    }
  }

  /** A generated request; placeholders are filled in by {@link #render}. */
  record Template(
      Route route,
      boolean valid,
      String method,
      String target,
      String version,
      List<String> headers,
      String body,
      Framing framing,
      int pick) {

    /** The request's bytes, with ids from {@code known}. */
    byte[] render(Known known, String apiKey, String adminToken) {
      StringBuilder sb = new StringBuilder();
      sb.append(method).append(' ').append(fill(target, known, apiKey, adminToken));
      if (!version.isEmpty()) {
        sb.append(' ').append(version);
      }
      sb.append("\r\n");
      if (!headers.contains(NO_HOST)) {
        sb.append("Host: 127.0.0.1\r\n");
      }
      for (String h : headers) {
        if (!h.equals(NO_HOST)) {
          sb.append(fill(h, known, apiKey, adminToken)).append("\r\n");
        }
      }
      sb.append("Connection: close\r\n");
      String b = body == null ? null : fill(body, known, apiKey, adminToken);
      frame(sb, b);
      return sb.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    private void frame(StringBuilder sb, String b) {
      if (b == null && framing.kind() == FramingKind.LENGTH) {
        sb.append("\r\n");
        return;
      }
      String body = b == null ? "" : b;
      int len = body.length();
      int n = framing.n();
      switch (framing.kind()) {
        case LENGTH -> sb.append("Content-Length: ").append(len).append("\r\n\r\n").append(body);
        case NONE -> sb.append("\r\n").append(body);
        case SHORT ->
            sb.append("Content-Length: ")
                .append(Math.max(0, len - 1 - Math.floorMod(n, Math.max(1, len))))
                .append("\r\n\r\n")
                .append(body);
        case LONG ->
            sb.append("Content-Length: ")
                .append(len + 1 + Math.floorMod(n, 5000))
                .append("\r\n\r\n")
                .append(body);
        case JUNK ->
            sb.append("Content-Length: ").append(framing.junk()).append("\r\n\r\n").append(body);
        case CHUNKED -> {
          sb.append("Transfer-Encoding: chunked\r\n\r\n");
          chunks(sb, body, 1 + Math.floorMod(n, 64));
          sb.append("0\r\n\r\n");
        }
        case CHUNKED_BAD -> {
          sb.append("Transfer-Encoding: chunked\r\n\r\n");
          switch (Math.floorMod(n, 6)) {
            case 0 -> sb.append("zz\r\n").append(body).append("\r\n0\r\n\r\n");
            case 1 -> chunks(sb, body, 7); // no last chunk
            case 2 ->
                sb.append(Integer.toHexString(len + 10))
                    .append("\r\n")
                    .append(body)
                    .append("\r\n0\r\n\r\n");
            case 3 ->
                sb.append(Integer.toHexString(len))
                    .append(";ext=\u00ff\"\r\n")
                    .append(body)
                    .append("\r\n0\r\n\r\n");
            case 4 -> sb.append("FFFFFFFFFFFFFFFFFF\r\n").append(body);
            default -> sb.append("-1\r\n").append(body).append("\r\n0\r\n\r\n");
          }
        }
        case BOTH -> {
          sb.append("Content-Length: ").append(len).append("\r\n");
          sb.append("Transfer-Encoding: chunked\r\n\r\n");
          chunks(sb, body, 16);
          sb.append("0\r\n\r\n");
        }
        case TWO_LENGTHS ->
            sb.append("Content-Length: ")
                .append(len)
                .append("\r\nContent-Length: ")
                .append(n % 2 == 0 ? len : len + 1)
                .append("\r\n\r\n")
                .append(body);
      }
    }

    private static void chunks(StringBuilder sb, String body, int size) {
      for (int i = 0; i < body.length(); i += size) {
        String c = body.substring(i, Math.min(body.length(), i + size));
        sb.append(Integer.toHexString(c.length())).append("\r\n").append(c).append("\r\n");
      }
    }

    private String fill(String s, Known known, String apiKey, String adminToken) {
      if (s.indexOf('@') < 0) {
        return s;
      }
      return s.replace("@AUTH@", Known.pick(known.auths, pick, "auth_unknown"))
          .replace("@NONCE@", Known.pick(known.nonces, pick, "nonce_unknown"))
          .replace("@ESC@", Known.pick(known.escalations, pick, "esc_unknown"))
          .replace("@BUNDLE@", Known.pick(known.bundles, pick, "bundle_unknown"))
          .replace("@RECEIPT@", Known.pick(known.receipts, pick, "01JZZZZZZZZZZZZZZZZZZZZZZZ"))
          .replace("@WS@", Known.pick(known.workspaces, pick, "ws_local"))
          .replace("@KEY@", Known.pick(known.apiKeys, pick, "key_unknown"))
          .replace("@HOOK@", "wh_unknown")
          .replace("@APIKEY@", apiKey)
          .replace("@ADMIN@", adminToken);
    }

    @Override
    public String toString() {
      return route
          + (valid ? " (valid) " : " ")
          + shown(method)
          + " "
          + shown(target)
          + " "
          + shown(version)
          + " headers="
          + shown(String.valueOf(headers))
          + " framing="
          + framing
          + " pick="
          + pick
          + " body="
          + (body == null ? "none" : shown(body));
    }

    private static String shown(String s) {
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < s.length() && sb.length() < 400; i++) {
        char c = s.charAt(i);
        if (c < 0x20 || c >= 0x7f) {
          sb.append(String.format("\\x%02x", (int) c & 0xff));
        } else {
          sb.append(c);
        }
      }
      return s.length() > 400 ? sb + "...(" + s.length() + " bytes)" : sb.toString();
    }
  }

  /** A header list entry meaning "send no Host header". */
  static final String NO_HOST = "@NOHOST@";

  // ---- the top-level generator

  /** Any request to any route: a quarter of them valid, the rest broken somewhere. */
  static Gen<Template> requests() {
    List<Tuple.Tuple2<Integer, Gen<Route>>> routes = new ArrayList<>();
    for (Route r : Route.values()) {
      routes.add(Tuple.of(r.weight, Gen.just(r)));
    }
    Gen<Route> route = Gen.frequencyOf(routes);
    Gen<Boolean> valid = Gen.integers().between(0, 99).map(i -> i < 25);
    // Built once per route and validity: building an arbitrary costs more than using it.
    Map<Route, Gen<Template>> validOnes = new EnumMap<>(Route.class);
    Map<Route, Gen<Template>> brokenOnes = new EnumMap<>(Route.class);
    for (Route r : Route.values()) {
      validOnes.put(r, request(r, true));
      brokenOnes.put(r, request(r, false));
    }
    return Gen.combine(route, valid)
        .as(Tuple::of)
        .flatMap(t -> (t.get2() ? validOnes : brokenOnes).get(t.get1()));
  }

  private static final class Draft {
    Route route;
    boolean valid;
    String method;
    String path;
    String query = "";
    String version = "HTTP/1.1";
    List<String> headers = new ArrayList<>();
    String body;
    Framing framing = Framing.LENGTH;
    int pick;

    Template build() {
      if (route == Route.ADMIN_CLOCK && body != null) {
        // The clock only moves forward; a jump would expire everything the run built. A body
        // that still asks to advance it by a positive amount advances it by nothing.
        body = body.replaceAll("(\"advance_seconds\"\\s*:\\s*)[1-9][0-9]{0,11}(?![0-9.eE])", "$10");
      }
      return new Template(
          route, valid, method, path + query, version, List.copyOf(headers), body, framing, pick);
    }
  }

  private static Gen<Template> request(Route route, boolean valid) {
    return Gen.withBuilder(
            () -> {
              Draft d = new Draft();
              d.route = route;
              d.valid = valid;
              return d;
            })
        .use(method(route, valid))
        .in(
            (d, m) -> {
              d.method = m;
              return d;
            })
        .use(path(route, valid))
        .in(
            (d, p) -> {
              d.path = p;
              return d;
            })
        .use(query(route, valid))
        .in(
            (d, q) -> {
              d.query = q;
              return d;
            })
        .use(version(valid))
        .in(
            (d, v) -> {
              d.version = v;
              return d;
            })
        .use(headers(route, valid))
        .in(
            (d, h) -> {
              d.headers = h;
              return d;
            })
        .use(body(route, valid))
        .in(
            (d, b) -> {
              d.body = b;
              return d;
            })
        .use(framing(valid))
        .in(
            (d, f) -> {
              d.framing = f;
              return d;
            })
        .use(Gen.integers().between(0, 1 << 20))
        .in(
            (d, p) -> {
              d.pick = p;
              return d;
            })
        .build(Draft::build);
  }

  /** {@code normal} with weight {@code 100 - oddPercent}, else {@code odd}. */
  private static <T> Gen<T> mostly(Gen<T> normal, int oddPercent, Gen<T> odd) {
    List<Tuple.Tuple2<Integer, Gen<T>>> choices =
        List.of(Tuple.of(100 - oddPercent, normal), Tuple.of(oddPercent, odd));
    return Gen.frequencyOf(choices);
  }

  // ---- request line

  private static Gen<String> method(Route route, boolean valid) {
    Gen<String> normal = Gen.just(route.method);
    if (valid) {
      return normal;
    }
    return mostly(
        normal,
        15,
        Gen.of(
            "GET",
            "POST",
            "PUT",
            "DELETE",
            "PATCH",
            "HEAD",
            "OPTIONS",
            "TRACE",
            "CONNECT",
            "PRI",
            "get",
            "Post",
            "FOO",
            "M-SEARCH",
            "PROPFIND",
            "G\u0000T",
            "X".repeat(300),
            "GE\u00c9T"));
  }

  private static final List<String> ODD_IDS =
      List.of(
          "",
          "x",
          "%zz",
          "%F",
          "%FF",
          "%ED%A0%80",
          "%C0%AF",
          "%00",
          "%2F",
          "%2e%2e",
          "..",
          ".",
          "a%20b",
          "\u00ff",
          "\u00e2\u0082",
          "%F0%9F%98%80",
          "01ARZ3NDEKTSV4RRFFQ69G5FAV",
          "auth_\u0001",
          "a;b=c",
          "a?b",
          "a#b",
          "%25",
          "%u00e9");

  private static Gen<String> path(Route route, boolean valid) {
    String template = route.path;
    // Every id but the last is a known one; the last may be fuzzed.
    int last = template.lastIndexOf('{');
    if (last > 0) {
      template =
          template.substring(0, last).replaceAll("\\{([A-Z]+)}", "@$1@") + template.substring(last);
    }
    int open = template.indexOf('{');
    Gen<String> known;
    if (open < 0) {
      known = Gen.just(template);
    } else {
      String name = template.substring(open + 1, template.indexOf('}'));
      String prefix = template.substring(0, open);
      String suffix = template.substring(template.indexOf('}') + 1);
      known = Gen.just(prefix + "@" + name + "@" + suffix);
      if (!valid) {
        Gen<String> id =
            Gen.oneOf(
                Gen.of(ODD_IDS),
                Gen.strings().withCharRange('!', '~').ofMaxLength(40),
                Gen.strings()
                    .withCharRange('\u00a0', '\u00ff')
                    .ofMaxLength(10), // raw bytes >= 0x80
                Gen.integers().between(100, 12_000).map("a"::repeat));
        known =
            mostly(
                known, 45, id.map(i -> prefix + i.replace(" ", "%20").replace("\r", "") + suffix));
      }
    }
    if (valid) {
      return known;
    }
    return mostly(
        known,
        6,
        Gen.of(
            "*",
            "",
            "http://127.0.0.1/v1/check",
            "http://evil.example/v1/check",
            "//v1/check",
            "/v1/check#frag",
            "/v1/../admin/v1/clock",
            "/v1/%2e%2e/admin/v1/clock",
            "/%",
            "/%zz",
            "/v1/ch\u00e9ck",
            "/v1/\u00ed\u00a0\u0080",
            "/v1/\u0001",
            "/" + "a".repeat(9000),
            "/v1/authorizations/" + "x".repeat(300),
            "v1/check",
            "/V1/CHECK",
            "/v1/check/",
            "/v1/check;jsessionid=1",
            "/v1//check",
            "/v1/check\\x",
            "/v1/check\t"));
  }

  private static Gen<String> query(Route route, boolean valid) {
    Gen<String> normal =
        switch (route) {
          case AUTH_LIST ->
              Gen.of("", "?limit=10", "?status=active", "?user_id=u1", "?agent_id=a1&limit=100");
          case ESC_LIST -> Gen.of("", "?status=pending", "?limit=5");
          case BUNDLE_LIST, TOMBSTONE_LIST -> Gen.of("", "?limit=20");
          case RECEIPT_LIST ->
              Gen.of(
                  "",
                  "?limit=100",
                  "?event=authorization.create",
                  "?decision=allow",
                  "?from=2026-11-22T00:00:00Z&to=2026-11-23T00:00:00Z",
                  "?authorization_id=@AUTH@",
                  "?scope=mail.send&limit=3");
          default ->
              route.body != BodyKind.NONE && route.mutating()
                  ? Gen.of("", "", "", "", "", "", "?wait=true", "?wait=false")
                  : Gen.just("");
        };
    if (valid) {
      return normal;
    }
    Gen<String> odd =
        Gen.oneOf(
            Gen.of(
                "?wait=maybe",
                "?wait=",
                "?wait=true&wait=false",
                "?wait=TRUE",
                "?limit=0",
                "?limit=101",
                "?limit=-1",
                "?limit=1e2",
                "?limit=99999999999999999999",
                "?limit=%zz",
                "?limit=",
                "?cursor=junk",
                "?cursor=%FF",
                "?cursor=" + "c".repeat(3000),
                "?cursor=eyJ4IjoxfQ",
                "?status=nope",
                "?status=%ED%A0%80",
                "?from=yesterday",
                "?to=2026-13-45T00:00:00Z",
                "?from=2026-11-22T00:00:00",
                "?event=x",
                "?decision=x",
                "?user_id=%ED%A0%80",
                "?user_id=%C0%80",
                "?scope=%00",
                "?resource=\u00ff",
                "?x=" + "a".repeat(5000),
                "?&&&",
                "?=",
                "?a=b=c",
                "?%",
                "?limit=50&limit=abc",
                "?wait=true&limit=1"),
            Gen.strings().withCharRange('!', '~').ofMaxLength(30).map(s -> "?" + s));
    return mostly(normal, 25, odd);
  }

  private static Gen<String> version(boolean valid) {
    if (valid) {
      return Gen.just("HTTP/1.1");
    }
    return mostly(
        Gen.just("HTTP/1.1"),
        4,
        Gen.of(
            "HTTP/1.0",
            "HTTP/2.0",
            "HTTP/2",
            "HTTP/0.9",
            "HTTP/1.2",
            "HTTP/9.9",
            "http/1.1",
            "HTTP/1.1 extra",
            "",
            "HTTPS/1.1",
            "HTTP/1.1\u0000"));
  }

  // ---- headers

  private static Gen<String> authorization(Route route) {
    return switch (route.caller) {
      case API -> Gen.just("Authorization: Bearer @APIKEY@");
      case ADMIN -> Gen.just("Authorization: Bearer @ADMIN@");
      case NONE, METRICS -> Gen.just("");
    };
  }

  private static Gen<List<String>> headers(Route route, boolean valid) {
    Gen<String> auth = authorization(route);
    if (valid) {
      // Sometimes an Idempotency-Key from a small pool: a second use replays or conflicts.
      Gen<String> idem =
          mostly(
              Gen.just(""),
              20,
              Gen.of("k1", "k2", "k3", "k4", "k5", "k6").map(k -> "Idempotency-Key: " + k));
      return Gen.combine(auth, idem).as(FuzzRequests::nonEmpty);
    }
    Gen<String> oddAuth =
        Gen.of(
            "",
            "Authorization: Bearer sk_nope",
            "Authorization: Bearer ",
            "Authorization: Bearer",
            "Authorization: bearer @APIKEY@",
            "Authorization: Basic dXNlcjpwYXNz",
            "Authorization: Bearer @APIKEY@x",
            "Authorization: Bearer \u00ff\u00fe",
            "Authorization: Bearer @ADMIN@",
            "Authorization: Bearer @APIKEY@",
            "Authorization: Bearer @APIKEY@\r\nAuthorization: Bearer sk_other",
            "Authorization: Bearer " + "a".repeat(5000));
    Gen<String> extra =
        Gen.oneOf(
            Gen.of(
                    "",
                    " ",
                    "k1",
                    "k2",
                    "a".repeat(255),
                    "a".repeat(256),
                    "\u00ff\u00e9",
                    "k\u0000",
                    "k 1",
                    "\u00ed\u00a0\u0080")
                .map(k -> "Idempotency-Key: " + k),
            Gen.strings().withCharRange(' ', '~').ofMaxLength(40).map(k -> "Idempotency-Key: " + k),
            Gen.of("", "ok-1", "a".repeat(129), "bad id", "\u00ff", "<script>", "\u00c3\u00a9")
                .map(k -> "X-Request-Id: " + k),
            Gen.of(
                    "text/plain",
                    "application/json; charset=iso-8859-1",
                    "application/json; charset=utf-16",
                    "application/xml",
                    "",
                    "multipart/form-data; boundary=x",
                    "application/x-www-form-urlencoded",
                    "application/json;;;")
                .map(t -> "Content-Type: " + t),
            Gen.of(
                "Expect: 100-continue",
                "Expect: something",
                "Content-Encoding: gzip",
                "Transfer-Encoding: gzip",
                "X-Big: " + "a".repeat(10_000),
                "X-Many: 1\r\n".repeat(150) + "X-End: 1",
                "NoColonHere",
                " folded: continuation",
                "X-Folded: a\r\n b",
                "Bad Name: x",
                "X-\u0001: y",
                "X-Utf: \u00c3\u00a9\u00ff",
                "Host: ",
                "Host: a b",
                "Host: 127.0.0.1\r\nHost: other",
                NO_HOST,
                "Upgrade: h2c\r\nConnection: Upgrade, HTTP2-Settings\r\nHTTP2-Settings: AAMAAABkAAQAAP__",
                "Upgrade: websocket\r\nConnection: Upgrade",
                "Accept: text/html",
                "Accept: application/xml",
                "Accept-Charset: utf-16",
                "Connection: keep-alive",
                ": empty-name",
                "Content-Length : 5"));
    return Gen.combine(mostly(auth, 15, oddAuth), extra.list().ofMaxSize(3), percent(30))
        .as(
            (a, list, useExtra) -> {
              List<String> out = new ArrayList<>();
              if (!a.isEmpty()) {
                out.add(a);
              }
              if (useExtra) {
                for (String h : list) {
                  if (!h.isEmpty()) {
                    out.add(h);
                  }
                }
              }
              return out;
            });
  }

  private static Gen<Boolean> percent(int p) {
    return Gen.integers().between(0, 99).map(i -> i < p);
  }

  private static List<String> nonEmpty(String... lines) {
    List<String> out = new ArrayList<>();
    for (String l : lines) {
      if (!l.isEmpty()) {
        out.add(l);
      }
    }
    return out;
  }

  // ---- framing

  private static Gen<Framing> framing(boolean valid) {
    if (valid) {
      return Gen.just(Framing.LENGTH);
    }
    Gen<Framing> odd =
        Gen.combine(
                Gen.of(FramingKind.values()),
                Gen.integers().between(0, 100_000),
                Gen.of("abc", "-1", "1e3", "+5", " 5 ", "0x10", "99999999999999999999", "", "5,5"))
            .as(Framing::new);
    return mostly(Gen.just(Framing.LENGTH), 15, odd);
  }

  // ---- bodies

  private static Gen<String> body(Route route, boolean valid) {
    Gen<ObjectNode> tree = validBody(route.body);
    if (tree == null) {
      // A route without a body: none, or (when broken) something anyway.
      if (valid) {
        return Gen.just((String) null);
      }
      return mostly(Gen.just((String) null), 20, WHOLE_BODIES);
    }
    Gen<String> text = tree.map(FuzzRequests::text);
    if (route.body == BodyKind.REVOKE || route.body == BodyKind.EMPTY) {
      text = Gen.oneOf(text, Gen.of("", "{}"));
    }
    if (valid) {
      return text;
    }
    Gen<String> mutatedTree =
        Gen.combine(tree, TREE_MUTATIONS)
            .as(
                (t, ms) -> {
                  ObjectNode copy = t.deepCopy();
                  for (TreeMutation m : ms) {
                    m.apply(copy);
                  }
                  return text(copy);
                });
    Gen<String> mutatedText =
        Gen.combine(Gen.oneOf(text, mutatedTree), TEXT_MUTATION).as((t, m) -> m.apply(t));
    List<Tuple.Tuple2<Integer, Gen<String>>> choices =
        List.of(
            Tuple.of(5, text),
            Tuple.of(55, mutatedTree),
            Tuple.of(25, mutatedText),
            Tuple.of(15, WHOLE_BODIES));
    return Gen.frequencyOf(choices);
  }

  /** Serializes a tree to UTF-8, as ISO-8859-1 chars, and expands the markers in it. */
  static String text(JsonNode tree) {
    String json;
    try {
      json = JSON.writeValueAsString(tree);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
    String bytes = new String(json.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
    return expand(bytes);
  }

  // Markers: a string value "\u0001V<n>\u0001" becomes a raw token, "\u0001S<n>\u0001" inside a
  // string becomes raw text (an escape Jackson would never write, or bytes that are not UTF-8).
  private static final Pattern TOKEN = Pattern.compile("\"\\\\u0001V(\\d+)\\\\u0001\"");
  private static final Pattern IN_STRING = Pattern.compile("\\\\u0001S(\\d+)\\\\u0001");

  private static final List<String> TOKENS =
      List.of(
          "1e99999",
          "-1e99999",
          "123456789012345678901234567890123456789",
          "9223372036854775808",
          "-9223372036854775809",
          "9007199254740993",
          "NaN",
          "Infinity",
          "-",
          "01",
          "1.",
          ".5",
          "0x10",
          "'single'",
          "/*c*/1",
          "undefined",
          "tru",
          "1" + "0".repeat(5000),
          "0." + "0".repeat(3000) + "1",
          "1e-99999",
          "[".repeat(40) + "]".repeat(40),
          "[".repeat(2000) + "]".repeat(2000),
          "{\"a\":".repeat(100) + "1" + "}".repeat(100),
          "{\"a\":".repeat(3000) + "1" + "}".repeat(3000),
          "[".repeat(50_000) + "]".repeat(50_000),
          "\"\\ud800\"",
          "\"\u00ff\"");

  private static final List<String> IN_STRINGS =
      List.of(
          "\\ud800",
          "\\udc00",
          "\\ud800\\ud800",
          "\\udbff x",
          "\\ud83d",
          "\u00ff",
          "\u00c0\u0080",
          "\u00ed\u00a0\u0080",
          "\u00ed\u00b0\u0080",
          "\u00e2\u0082",
          "\u00f8\u0088\u0080\u0080\u0080",
          "\u00f4\u0090\u0080\u0080",
          "\u0000",
          "\t",
          "\\x41",
          "\\u12",
          "\\",
          "\\uZZZZ",
          "\\u0000");

  private static String expand(String s) {
    if (s.indexOf("\\u0001") < 0) {
      return s;
    }
    Matcher t = TOKEN.matcher(s);
    StringBuilder sb = new StringBuilder();
    while (t.find()) {
      t.appendReplacement(
          sb, Matcher.quoteReplacement(TOKENS.get(Integer.parseInt(t.group(1)) % TOKENS.size())));
    }
    t.appendTail(sb);
    Matcher m = IN_STRING.matcher(sb.toString());
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(
          out,
          Matcher.quoteReplacement(
              IN_STRINGS.get(Integer.parseInt(m.group(1)) % IN_STRINGS.size())));
    }
    m.appendTail(out);
    return out.toString();
  }

  /** Bodies that are no longer a mutation of the route's body. */
  private static Gen<String> wholeBodies() {
    return Gen.oneOf(
        Gen.of(
            "",
            " ",
            "null",
            "[]",
            "[{}]",
            "\"x\"",
            "1",
            "true",
            "{",
            "}",
            "{\"a\"}",
            "{'a':1}",
            "{a:1}",
            "{\"a\":1,}",
            "{\"a\":NaN}",
            "{/*c*/}",
            "\u00ef\u00bb\u00bf{}",
            "{}{}",
            "{} x",
            "\u00ff\u00fe{\u0000}\u0000",
            "{\u0000\"\u0000a\u0000\"\u0000:\u00001\u0000}\u0000",
            "a=1&b=2",
            "<a/>",
            "{\"a\":\"\\ud800\"}",
            "{\"\\ud800\":1}",
            "{\"a\":\"\u00ed\u00a0\u0080\"}",
            "{\"a\":" + "1".repeat(5000) + "}",
            "[".repeat(100_000),
            "[".repeat(999) + "]".repeat(999),
            "{\"a\":".repeat(1001) + "1" + "}".repeat(1001),
            "{\"authorization_id\":" + "[".repeat(600) + "]".repeat(600) + "}",
            "{\"a\":\"" + "x".repeat(MAX_BODY + 100) + "\"}"),
        Gen.strings().withCharRange('\u0000', '\u00ff').ofMaxLength(200));
  }

  /** The server's body limit (1 MiB), so that one of the bodies is just over it. */
  private static final int MAX_BODY = 1024 * 1024;

  // ---- mutations

  /** A change to a body's JSON tree at the {@code where}-th place (in walk order). */
  record TreeMutation(int kind, int where, JsonNode value, String key) {
    void apply(ObjectNode root) {
      JsonNode value = this.value.deepCopy(); // generated values may be shared between requests
      List<JsonNode> containers = new ArrayList<>();
      collect(root, containers);
      JsonNode c = containers.get(Math.floorMod(where, containers.size()));
      if (c instanceof ObjectNode o) {
        List<String> names = new ArrayList<>();
        o.fieldNames().forEachRemaining(names::add);
        String name = names.isEmpty() ? key : names.get(Math.floorMod(where, names.size()));
        switch (kind) {
          case 0 -> o.set(name, value);
          case 1 -> o.remove(name);
          case 2 -> o.set(key, value);
          default -> {
            JsonNode old = o.get(name);
            ArrayNode wrapped = NODES.arrayNode();
            wrapped.add(old == null ? NODES.nullNode() : old);
            o.set(name, wrapped);
          }
        }
      } else if (c instanceof ArrayNode a) {
        int i = a.isEmpty() ? 0 : Math.floorMod(where, a.size());
        switch (kind) {
          case 0 -> {
            if (a.isEmpty()) {
              a.add(value);
            } else {
              a.set(i, value);
            }
          }
          case 1 -> {
            if (!a.isEmpty()) {
              a.remove(i);
            }
          }
          default -> a.add(value);
        }
      }
    }

    private static void collect(JsonNode n, List<JsonNode> out) {
      if (n.isContainerNode()) {
        out.add(n);
        for (JsonNode child : n) {
          collect(child, out);
        }
      }
    }
  }

  private static Gen<TreeMutation> treeMutation() {
    return Gen.combine(
            Gen.integers().between(0, 3), Gen.integers().between(0, 1000), oddValue(), oddKey())
        .as(TreeMutation::new);
  }

  private static Gen<String> oddKey() {
    return Gen.oneOf(
        Gen.of(
            "",
            "unknown",
            "a".repeat(300),
            "k\u0001S0\u0001",
            "k\u0001S1\u0001",
            "k\u0001S6\u0001",
            "__proto__",
            "constructor",
            "user_id",
            "scopes",
            "authorization_id",
            "\u0000",
            "\ud83d\ude00",
            "$where"),
        Gen.strings().withCharRange(' ', '\u00ff').ofMaxLength(12));
  }

  private static Gen<JsonNode> oddValue() {
    Gen<String> plainText =
        Gen.strings()
            .withCharRange('\u0000', '\ud7ff')
            .withCharRange('\ue000', '\ufffd')
            .ofMaxLength(30);
    Gen<JsonNode> strings =
        Gen.oneOf(
            plainText.map(NODES::textNode),
            Gen.of(
                    "",
                    "x",
                    "alice@example.com",
                    "+1 415 555 0100",
                    "a\u0000b",
                    "\u0007",
                    "\u2028",
                    "\u200b",
                    "\ufeff",
                    "\ud83d\ude00",
                    "mail.send",
                    "*",
                    "2026-11-29T10:00:00Z",
                    "2026-11-29",
                    "approved",
                    "active",
                    "auth_x",
                    "@AUTH@",
                    "@NONCE@")
                .map(NODES::textNode),
            Gen.combine(plainText, Gen.integers().between(0, IN_STRINGS.size() - 1))
                .as((p, i) -> NODES.textNode(p + "\u0001S" + i + "\u0001")),
            Gen.integers().between(257, 20_000).map(n -> NODES.textNode("x".repeat(n))),
            Gen.integers().between(100, 5_000).map(n -> NODES.textNode("\u00e9".repeat(n))));
    Gen<JsonNode> tokens =
        Gen.integers()
            .between(0, TOKENS.size() - 1)
            .map(i -> NODES.textNode("\u0001V" + i + "\u0001"));
    Gen<JsonNode> numbers =
        Gen.oneOf(
            Gen.longs().map(NODES::numberNode),
            Gen.of(
                    NODES.numberNode(0),
                    NODES.numberNode(-1),
                    NODES.numberNode(1.5),
                    NODES.numberNode(-0.0),
                    NODES.numberNode(Long.MAX_VALUE),
                    NODES.numberNode(Long.MIN_VALUE),
                    NODES.numberNode(9_007_199_254_740_992L),
                    NODES.numberNode(BigInteger.TEN.pow(30)),
                    NODES.numberNode(new BigDecimal("1e400")),
                    NODES.numberNode(new BigDecimal("-1e-400")),
                    NODES.numberNode(1e308))
                .map(n -> (JsonNode) n));
    Gen<JsonNode> others =
        Gen.of(
            NODES.booleanNode(true),
            NODES.booleanNode(false),
            NODES.nullNode(),
            NODES.arrayNode(),
            NODES.objectNode(),
            NODES.arrayNode().add(1).add("a").add(NODES.nullNode()),
            NODES.objectNode().put("a", 1).set("b", NODES.arrayNode()),
            NODES.arrayNode().add(NODES.objectNode().put("name", "mail.send")),
            NODES.objectNode().put("name", "x"));
    List<Tuple.Tuple2<Integer, Gen<JsonNode>>> choices =
        List.of(
            Tuple.of(35, strings),
            Tuple.of(15, tokens),
            Tuple.of(25, numbers),
            Tuple.of(25, others));
    return Gen.frequencyOf(choices);
  }

  /** A change to a body's bytes. */
  @FunctionalInterface
  interface TextMutation {
    String apply(String text);
  }

  private static Gen<TextMutation> textMutation() {
    return Gen.combine(
            Gen.integers().between(0, 6),
            Gen.integers().between(0, 100_000),
            Gen.of(IN_STRINGS),
            Gen.of("}", "]", " x", "{}", "\u0000", "\n\n{}", ",", "\"", "\u00ff"))
        .as(
            (kind, at, bytes, tail) ->
                text -> {
                  int n = text.length();
                  int i = n == 0 ? 0 : Math.floorMod(at, n);
                  return switch (kind) {
                    case 0 -> text.substring(0, i);
                    case 1 -> text.substring(0, i) + bytes + text.substring(i);
                    case 2 -> text + tail;
                    case 3 -> "\u00ef\u00bb\u00bf" + text;
                    case 4 ->
                        text.startsWith("{\"") && text.indexOf(':') > 0
                            ? "{"
                                + text.substring(1, text.indexOf(':'))
                                + ":null,"
                                + text.substring(1)
                            : text + tail;
                    case 5 -> n == 0 ? text : text.substring(0, i) + text.substring(i + 1);
                    default ->
                        n == 0
                            ? text
                            : text.substring(0, i)
                                + (char) ((text.charAt(i) ^ 0x80) & 0xff)
                                + text.substring(i + 1);
                  };
                });
  }

  // ---- valid bodies

  private static Gen<List<String>> scopes() {
    return Gen.subsetOf(SCOPES).ofMinSize(1).map(s -> sorted(s));
  }

  private static List<String> sorted(Set<String> s) {
    List<String> out = new ArrayList<>(s);
    out.sort(null);
    return out;
  }

  private static ArrayNode entries(List<String> scopes, int constraint) {
    ArrayNode a = NODES.arrayNode();
    for (String s : scopes) {
      ObjectNode e = a.addObject().put("name", s);
      if (s.equals("mail.send") && constraint == 1) {
        e.putObject("constraints").put("resource_pattern", "mailbox/*");
      } else if (s.equals("pay.send") && constraint == 2) {
        e.putObject("constraints").put("max_per_day", 3);
      } else if (s.equals("crm.read") && constraint == 3) {
        e.putObject("constraints").putArray("allowed_initiators").add("user");
      }
    }
    return a;
  }

  private static Gen<ObjectNode> validBody(BodyKind kind) {
    return switch (kind) {
      case NONE -> null;
      case CREATE_AUTH ->
          Gen.combine(
                  Gen.of("u1", "u2", "u3", "u4"),
                  Gen.of("a1", "a2", "a3"),
                  scopes(),
                  Gen.integers().between(0, 9),
                  Gen.integers().between(0, 3),
                  Gen.longs().between(0, 10_000_000).injectNull(0.7))
              .as(
                  (user, agent, scopes, flags, constraint, budget) -> {
                    ObjectNode o = NODES.objectNode().put("user_id", user);
                    if (flags == 9) {
                      return o.put("bundle_id", "@BUNDLE@");
                    }
                    o.put("agent_id", agent);
                    o.set("scopes", entries(scopes, constraint));
                    if (flags % 3 == 1) {
                      o.putArray("requires_confirm_for").add(scopes.get(0));
                    }
                    if (flags % 4 == 2 && scopes.size() > 1) {
                      String s = scopes.get(scopes.size() - 1);
                      o.putArray("requires_escalation_for").add(s);
                      o.putObject("escalation_targets").put(s, "approver_1");
                    }
                    o.put("expires_at", "2026-11-29T10:00:00Z");
                    if (budget != null) {
                      o.put("budget_limit_micros", budget);
                    }
                    if (flags == 5) {
                      o.putObject("metadata").put("ticket", "T-1").putArray("tags").add("x");
                    }
                    return o;
                  });
      case CHECK ->
          Gen.combine(
                  Gen.subsetOf("mail.send", "crm.read", "files.write", "pay.send", "other")
                      .ofMinSize(1)
                      .map(FuzzRequests::sorted),
                  Gen.of("mailbox/alice", "res/1", "res/2", "r\u00e9s").injectNull(0.4),
                  Gen.of("s1", "s2").injectNull(0.7),
                  Gen.longs().between(0, 5_000_000).injectNull(0.6),
                  Gen.of("user", "agent").injectNull(0.6))
              .as(
                  (scopes, resource, session, cost, initiator) -> {
                    ObjectNode o = NODES.objectNode().put("authorization_id", "@AUTH@");
                    ArrayNode a = o.putArray("scopes");
                    scopes.forEach(a::add);
                    if (resource != null) {
                      o.put("resource", resource);
                    }
                    if (session != null) {
                      o.put("session_id", session);
                    }
                    if (cost != null) {
                      o.put("estimated_cost_micros", cost);
                    }
                    if (initiator != null) {
                      o.putObject("context").put("initiated_by", initiator);
                    }
                    return o;
                  });
      case REVOKE ->
          Gen.of("ops", "admin_1")
              .injectNull(0.5)
              .map(
                  by -> {
                    ObjectNode o = NODES.objectNode();
                    if (by != null) {
                      o.put("revoked_by", by).put("notes", "fuzz");
                    }
                    return o;
                  });
      case CONFIRM ->
          Gen.combine(
                  Gen.of(true, false),
                  Gen.longs().between(1, 3600).injectNull(0.5),
                  Gen.of("api", "mcp_elicitation", "console").injectNull(0.5))
              .as(
                  (approved, ttl, via) -> {
                    ObjectNode o = NODES.objectNode().put("approved", approved);
                    if (ttl != null) {
                      o.put("ttl_seconds", ttl);
                    }
                    if (via != null) {
                      o.put("via", via);
                    }
                    return o;
                  });
      case RESOLVE ->
          Gen.combine(Gen.of("approved", "rejected"), Gen.of("n").injectNull(0.5))
              .as(
                  (resolution, note) -> {
                    ObjectNode o =
                        NODES
                            .objectNode()
                            .put("resolution", resolution)
                            .put("resolved_by", "approver_1");
                    if (note != null) {
                      o.put("note", note);
                    }
                    return o;
                  });
      case BUNDLE, BUNDLE_EDIT ->
          Gen.combine(
                  Gen.integers().between(0, 30),
                  Gen.of("a1", "a2"),
                  scopes(),
                  Gen.longs().between(1, 366).injectNull(0.5))
              .as(
                  (k, agent, scopes, days) -> {
                    ObjectNode o = NODES.objectNode();
                    if (kind == BodyKind.BUNDLE) {
                      o.put("id", "b" + k);
                    }
                    o.put("agent_id", agent);
                    o.set("scopes", entries(scopes, 0));
                    if (days != null) {
                      o.put("default_expiry_days", days);
                    }
                    return o.put("description", "bundle " + k);
                  });
      case EMPTY -> Gen.just(NODES.objectNode());
      case TOMBSTONE ->
          Gen.integers()
              .between(0, 50)
              .map(k -> NODES.objectNode().put("resource", "res/" + k).put("reason", "gone"));
      case CREATE_WS ->
          Gen.combine(Gen.integers().between(0, 200), Gen.of("free", "pro"))
              .as(
                  (k, plan) ->
                      NODES.objectNode().put("workspace_id", "ws_fz_" + k).put("plan", plan));
      case CLOCK -> Gen.just(NODES.objectNode().put("advance_seconds", 0));
      case API_KEY ->
          Gen.combine(
                  Gen.of("full", "app", "agent", "tool_server", "approver", "auditor"),
                  Gen.integers().between(0, 99))
              .as(
                  (role, k) -> {
                    ObjectNode o = NODES.objectNode().put("role", role).put("name", "key " + k);
                    if (role.equals("approver")) {
                      o.put("approver_id", "appr_" + k);
                    }
                    return o;
                  });
      // Targets the rules refuse (no connection leaves the machine): documentation, private and
      // metadata addresses, plain http.
      case WEBHOOK ->
          Gen.combine(
                  Gen.of(
                      "https://192.0.2.1/hook",
                      "https://10.0.0.1/hook",
                      "https://169.254.169.254/latest",
                      "http://127.0.0.1:9/hook"),
                  Gen.of("escalation.created", "authorization.revoked"))
              .as(
                  (url, event) -> {
                    ObjectNode o = NODES.objectNode().put("url", url);
                    o.putArray("events").add(event);
                    return o;
                  });
    };
  }

  /** Every receipt id in a response body, at any depth. */
  static void receiptIds(JsonNode n, Set<String> out) {
    if (n.isObject()) {
      for (Map.Entry<String, JsonNode> e : n.properties()) {
        if (e.getKey().equals("receipt_id") && e.getValue().isTextual()) {
          out.add(e.getValue().textValue());
        } else {
          receiptIds(e.getValue(), out);
        }
      }
    } else if (n.isArray()) {
      for (JsonNode c : n) {
        receiptIds(c, out);
      }
    }
  }

  // Built once (after the tables above, which they use): building an arbitrary costs more than
  // drawing from it.
  private static final Gen<List<TreeMutation>> TREE_MUTATIONS =
      treeMutation().list().ofMinSize(1).ofMaxSize(3);
  private static final Gen<TextMutation> TEXT_MUTATION = textMutation();
  private static final Gen<String> WHOLE_BODIES = wholeBodies();
}
