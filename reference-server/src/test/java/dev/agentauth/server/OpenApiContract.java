package dev.agentauth.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.dialect.Dialects;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * The server's OpenAPI document ({@code src/main/resources/openapi.json}) as a checker of real
 * traffic: {@link ServerHarness} hands it every request it sends and every answer it gets, and it
 * throws an {@link AssertionError} (failing the test that sent the request) when the answer is not
 * one the document describes: an undocumented status, a body that does not match the status's
 * schema, a problem {@code code} the operation does not list, or a 2xx answer to a request body the
 * document calls invalid. Every operation × status pair seen is counted; at the end of the JVM the
 * counts are written for this build and {@code target/openapi-coverage.md} lists every documented
 * pair with the answers every JVM of the build saw (surefire's and each store's failsafe run, see
 * {@link OpenApiCoverageReport}); {@code target/openapi-examples-<store>.json} keeps one real
 * answer per pair (the document's examples were taken from these).
 */
final class OpenApiContract {
  /** The document on the class path, as the server serves it. */
  static final String RESOURCE = "openapi.json";

  private static final String BASE = "classpath:" + RESOURCE;
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static volatile OpenApiContract instance;

  /** One operation of the document. */
  record Operation(
      String method, String template, Pattern pattern, JsonNode node, int literalSegments) {
    String key() {
      return method.toUpperCase(Locale.ROOT) + " " + template;
    }
  }

  final JsonNode document;
  private final SchemaRegistry registry;
  private final List<Operation> operations = new ArrayList<>();
  private final Map<String, Schema> schemas = new ConcurrentHashMap<>();
  private final Map<String, AtomicLong> seen = new ConcurrentHashMap<>();
  private final Map<String, JsonNode> examples = new ConcurrentHashMap<>();
  private final List<String> violations = java.util.Collections.synchronizedList(new ArrayList<>());

  private OpenApiContract() {
    try (InputStream in = OpenApiContract.class.getClassLoader().getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(RESOURCE + " is not on the class path");
      }
      document = MAPPER.readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    registry = SchemaRegistry.withDialect(Dialects.getOpenApi31());
    document
        .path("paths")
        .fields()
        .forEachRemaining(
            path -> {
              String template = path.getKey();
              StringBuilder regex = new StringBuilder("^");
              int literal = 0;
              for (String segment : template.substring(1).split("/", -1)) {
                regex.append('/');
                if (segment.startsWith("{")) {
                  regex.append("[^/]+");
                } else {
                  regex.append(Pattern.quote(segment));
                  literal++;
                }
              }
              Pattern pattern = Pattern.compile(regex.append('$').toString());
              int literalSegments = literal;
              path.getValue()
                  .fields()
                  .forEachRemaining(
                      m ->
                          operations.add(
                              new Operation(
                                  m.getKey(), template, pattern, m.getValue(), literalSegments)));
            });
  }

  /** The checker of this JVM; it writes its coverage report when the JVM ends. */
  static OpenApiContract get() {
    OpenApiContract c = instance;
    if (c == null) {
      synchronized (OpenApiContract.class) {
        c = instance;
        if (c == null) {
          c = new OpenApiContract();
          OpenApiContract report = c;
          Runtime.getRuntime()
              .addShutdownHook(new Thread(() -> report.writeReport(Path.of("target"))));
          instance = c;
        }
      }
    }
    return c;
  }

  List<Operation> operations() {
    return operations;
  }

  /** The operation that serves {@code method} on {@code path} (no query), or null. */
  Operation operation(String method, String path) {
    Operation best = null;
    for (Operation o : operations) {
      if (o.method().equalsIgnoreCase(method)
          && o.pattern().matcher(path).matches()
          && (best == null || o.literalSegments() > best.literalSegments())) {
        best = o;
      }
    }
    return best;
  }

  /** The schema at {@code pointer} (such as {@code /components/schemas/Problem}). */
  Schema schema(String pointer) {
    return schemas.computeIfAbsent(
        pointer, p -> registry.getSchema(SchemaLocation.of(BASE + "#" + p)));
  }

  /**
   * Checks one exchange; throws an AssertionError describing every way it departs from the
   * document.
   *
   * @param requestBody the bytes sent (empty for none)
   * @param contentType the answer's Content-Type, or null
   */
  void check(
      String method,
      String pathAndQuery,
      byte[] requestBody,
      int status,
      String contentType,
      String responseBody) {
    String path = pathAndQuery;
    int q = path.indexOf('?');
    if (q >= 0) {
      path = path.substring(0, q);
    }
    if (path.length() > 1 && path.endsWith("/")) {
      path = path.substring(0, path.length() - 1);
    }
    if ((path.equals("/console") || path.startsWith("/console/")) && status < 400) {
      // The console's static files (HTML, JavaScript, CSS, its redirect) are not part of the API
      // and not in the document (docs/console.md describes them); its refusals still are problems.
      return;
    }
    List<String> problems = new ArrayList<>();
    JsonNode body = parse(responseBody);
    Operation op = operation(method, path);
    if (op == null) {
      // No such endpoint or method: the answer must be one a missing route gets.
      count("(no operation) " + status);
      if (!isProblem(contentType, body)) {
        problems.add("no documented operation, and the answer is not a problem");
      } else {
        String code = body.path("code").asText();
        if (!code.equals("not_found")
            && !code.equals("method_not_allowed")
            && !anyOperationCodes().contains(code)) {
          problems.add("no documented operation, yet the problem code is " + code);
        }
        problems.addAll(errors("/components/schemas/Problem", body));
      }
      fail(method, pathAndQuery, status, responseBody, problems);
      return;
    }
    String key = op.key();
    boolean success = status >= 200 && status < 300;
    // The request: a body the document calls invalid must not be accepted.
    JsonNode requestSchema = op.node().path("requestBody");
    // A text/plain body (log cosignatures) is not JSON; the server checks it itself.
    if (!requestSchema.isMissingNode() && requestSchema.path("content").has("application/json")) {
      String pointer = refOf(requestSchema.path("content").path("application/json").path("schema"));
      if (requestBody.length == 0) {
        if (requestSchema.path("required").asBoolean(false) && success) {
          problems.add("the request had no body, which the document requires, yet got " + status);
        }
      } else if (success) {
        JsonNode sent = parse(new String(requestBody, StandardCharsets.UTF_8));
        if (sent == null) {
          problems.add("the request body is not JSON, yet got " + status);
        } else {
          List<String> invalid = errors(pointer, sent);
          if (invalid.isEmpty()) {
            examples.putIfAbsent(key + " request", sent);
          } else {
            problems.add(
                "the document calls the request body invalid "
                    + invalid
                    + ", yet the server accepted it with "
                    + status);
          }
        }
      }
    }
    // The answer.
    JsonNode response = op.node().path("responses").path(Integer.toString(status));
    if (response.isMissingNode()) {
      String code = body == null ? null : body.path("code").asText(null);
      if (isProblem(contentType, body) && code != null && anyOperationCodes().contains(code)) {
        count(key + " default");
        problems.addAll(errors("/components/schemas/Problem", body));
        checkCodeStatus(code, status, problems);
      } else {
        count(key + " " + status + " (undocumented)");
        problems.add(
            "status "
                + status
                + " is not documented for "
                + key
                + (code == null ? "" : " (code " + code + ")"));
      }
      fail(method, pathAndQuery, status, responseBody, problems);
      return;
    }
    count(key + " " + status);
    if (response.has("$ref")) {
      response = resolve(response.get("$ref").asText());
    }
    JsonNode content = response.path("content");
    String mediaType = contentType == null ? "" : contentType.split(";")[0].trim();
    if (!content.has(mediaType)) {
      problems.add(
          "Content-Type " + contentType + " is not among " + iterable(content.fieldNames()));
    } else {
      JsonNode schema = content.path(mediaType).path("schema");
      if (mediaType.endsWith("json")) {
        if (body == null) {
          problems.add("the body is not JSON");
        } else {
          problems.addAll(errors(refOf(schema), body));
          examples.putIfAbsent(key + " " + status, body);
        }
      }
      if (mediaType.equals("application/problem+json") && body != null) {
        String code = body.path("code").asText();
        List<String> listed = new ArrayList<>();
        op.node().path("x-problem-codes").forEach(c -> listed.add(c.asText()));
        if (!listed.contains(code) && !anyOperationCodes().contains(code)) {
          problems.add(
              "problem code " + code + " is not in " + key + "'s x-problem-codes " + listed);
        }
        checkCodeStatus(code, status, problems);
      }
    }
    fail(method, pathAndQuery, status, responseBody, problems);
  }

  private void checkCodeStatus(String code, int status, List<String> problems) {
    JsonNode expected = document.path("x-problem-code-status").path(code);
    if (expected.asInt(-1) != status) {
      problems.add("problem code " + code + " comes with status " + expected + ", not " + status);
    }
  }

  private List<String> anyOperationCodes() {
    List<String> codes = new ArrayList<>();
    document.path("x-problem-codes-any-operation").forEach(c -> codes.add(c.asText()));
    return codes;
  }

  private void fail(
      String method, String pathAndQuery, int status, String responseBody, List<String> problems) {
    if (problems.isEmpty()) {
      return;
    }
    String message =
        "OpenAPI contract: "
            + method
            + " "
            + pathAndQuery
            + " answered "
            + status
            + " "
            + abbreviate(responseBody)
            + ": "
            + String.join("; ", problems);
    violations.add(message);
    throw new AssertionError(message);
  }

  private static String abbreviate(String s) {
    return s == null ? "" : s.length() > 600 ? s.substring(0, 600) + "…" : s;
  }

  private static boolean isProblem(String contentType, JsonNode body) {
    return contentType != null
        && contentType.startsWith("application/problem+json")
        && body != null
        && body.isObject();
  }

  private List<String> errors(String pointer, JsonNode instance) {
    List<String> out = new ArrayList<>();
    for (Error e : schema(pointer).validate(instance)) {
      out.add(e.toString());
    }
    return out;
  }

  private JsonNode resolve(String ref) {
    return document.at(ref.substring(1));
  }

  private static String refOf(JsonNode schema) {
    if (!schema.has("$ref")) {
      throw new IllegalStateException("the checker expects a $ref schema, got " + schema);
    }
    return schema.get("$ref").asText().substring(1);
  }

  private static JsonNode parse(String text) {
    if (text == null || text.isEmpty()) {
      return null;
    }
    try {
      return MAPPER.readTree(text);
    } catch (IOException e) {
      return null;
    }
  }

  private void count(String pair) {
    seen.computeIfAbsent(pair, k -> new AtomicLong()).incrementAndGet();
  }

  private static List<String> iterable(Iterator<String> it) {
    List<String> out = new ArrayList<>();
    it.forEachRemaining(out::add);
    return out;
  }

  /** Every documented operation × status pair (the {@code default} entry aside), in order. */
  List<String> documentedPairs() {
    List<String> pairs = new ArrayList<>();
    for (Operation o : operations) {
      o.node()
          .path("responses")
          .fieldNames()
          .forEachRemaining(
              status -> {
                if (!status.equals("default")) {
                  pairs.add(o.key() + " " + status);
                }
              });
    }
    return pairs;
  }

  /**
   * Writes this JVM's counts under {@code dir/openapi-coverage/<build>/} and the examples of this
   * run's store, then rewrites {@code dir/openapi-coverage.md}: the union of every JVM of the same
   * build ({@link OpenApiCoverageReport}).
   */
  void writeReport(Path dir) {
    if (seen.isEmpty()) {
      return;
    }
    Map<String, Long> counts = new TreeMap<>();
    seen.forEach((k, v) -> counts.put(k, v.get()));
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("store", TestStores.KIND);
    json.put("seen", counts);
    json.put("violations", new ArrayList<>(violations));
    try {
      Path runs = OpenApiCoverageReport.runsDir(dir);
      Files.createDirectories(runs);
      String name =
          TestStores.KIND + "-" + ProcessHandle.current().pid() + "-" + System.nanoTime() + ".json";
      Files.writeString(runs.resolve(name), MAPPER.writeValueAsString(json));
      Files.writeString(
          dir.resolve("openapi-examples-" + TestStores.KIND + ".json"),
          MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(new TreeMap<>(examples)));
      OpenApiCoverageReport union = OpenApiCoverageReport.read(runs, documentedPairs());
      Files.writeString(dir.resolve("openapi-coverage.md"), union.markdown());
    } catch (IOException e) {
      System.err.println("OpenApiContract: cannot write the coverage report: " + e);
    }
  }
}
