package dev.agentauth.server;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.agentauth.server.ServerHarness.Resp;
import dev.agentauth.server.http.Api;
import dev.agentauth.server.service.ErrorCode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The OpenAPI document ({@code src/main/resources/openapi.json}, served at {@code GET
 * /openapi.json}) is written by hand and held to the server here: it is a valid OpenAPI 3.1
 * document (the OpenAPI Initiative's published schema, checked by networknt's validator), it lists
 * exactly the route table's operations with their access and roles (so a route added without being
 * documented fails the build), its problem codes are the server's, its examples fit their schemas,
 * and its copy {@code docs/openapi.json} and the generated {@code docs/api-reference.md} are up to
 * date. The HTTP suites then check every real exchange against it ({@link OpenApiContract}).
 */
class OpenApiDocumentTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final String META_SCHEMA_ID =
      "https://spec.openapis.org/oas/3.1/schema/2022-10-07";
  private static final Path MAIN_COPY = Path.of("src", "main", "resources", "openapi.json");
  private static final Path DOCS_COPY = Path.of("..", "docs", "openapi.json");

  private static JsonNode document() throws IOException {
    return MAPPER.readTree(Files.readAllBytes(MAIN_COPY));
  }

  private static List<Error> metaSchemaErrors(JsonNode doc) throws IOException {
    String metaSchema;
    try (InputStream in =
        OpenApiDocumentTest.class.getResourceAsStream("/openapi/oas-3.1-schema-2022-10-07.json")) {
      metaSchema = new String(in.readAllBytes(), UTF_8);
    }
    Schema schema =
        SchemaRegistry.withDefaultDialect(
                SpecificationVersion.DRAFT_2020_12,
                b -> b.schemas(Map.of(META_SCHEMA_ID, metaSchema)))
            .getSchema(SchemaLocation.of(META_SCHEMA_ID));
    return schema.validate(doc);
  }

  @Test
  void theDocumentIsValidAgainstThePublishedOpenApi31Schema() throws IOException {
    JsonNode doc = document();
    assertThat(doc.path("openapi").asText()).startsWith("3.1.");
    assertThat(metaSchemaErrors(doc)).isEmpty();
    // The check can fail: a document without its info, or with a path not starting with a
    // slash, is refused.
    ObjectNode broken = doc.deepCopy();
    broken.remove("info");
    ((ObjectNode) broken.path("paths")).set("v1/nothing", MAPPER.createObjectNode());
    assertThat(metaSchemaErrors(broken)).hasSizeGreaterThanOrEqualTo(2);
  }

  @Test
  void theDocumentListsExactlyTheRouteTableWithItsAccessAndRoles() throws IOException {
    JsonNode doc = document();
    TreeSet<String> documented = new TreeSet<>();
    doc.path("paths")
        .fields()
        .forEachRemaining(
            p ->
                p.getValue()
                    .fields()
                    .forEachRemaining(
                        m -> documented.add(row(p.getKey(), m.getKey(), m.getValue()))));
    TreeSet<String> served = new TreeSet<>();
    try (ServerHarness h = ServerHarness.start()) {
      for (Api.Endpoint e : h.server.endpoints()) {
        served.add(e.method() + " " + e.path() + " " + e.access() + " " + e.roles());
      }
    }
    assertThat(served).hasSizeGreaterThan(30);
    assertThat(documented)
        .as(
            "the OpenAPI document (src/main/resources/openapi.json) must describe every row of"
                + " RouteTable, with its access and roles, and nothing else")
        .isEqualTo(served);
  }

  private static String row(String path, String method, JsonNode op) {
    String access = op.path("x-agentauth-access").asText();
    List<String> roles = new ArrayList<>();
    op.path("x-agentauth-roles").forEach(r -> roles.add(r.asText()));
    // The security requirement says the same as the access kind.
    String scheme =
        switch (access) {
          case "API_KEY" -> "[{\"apiKey\":[]}]";
          case "ADMIN" -> "[{\"adminToken\":[]}]";
          case "METRICS" -> "[{},{\"metricsToken\":[]}]";
          default -> "[]";
        };
    assertThat(op.path("security").toString()).as(method + " " + path).isEqualTo(scheme);
    return method.toUpperCase() + " " + path + " " + access + " " + roles;
  }

  @Test
  void theProblemCodesAreTheServersAndEachOperationDocumentsTheirStatuses() throws IOException {
    JsonNode doc = document();
    Map<String, Integer> server = new TreeMap<>();
    for (ErrorCode c : ErrorCode.values()) {
      server.put(c.code(), c.status());
    }
    Map<String, Integer> documented = new TreeMap<>();
    doc.path("x-problem-code-status")
        .fields()
        .forEachRemaining(e -> documented.put(e.getKey(), e.getValue().asInt()));
    assertThat(documented).isEqualTo(server);
    List<String> enumerated = new ArrayList<>();
    doc.at("/components/schemas/Problem/properties/code/enum")
        .forEach(c -> enumerated.add(c.asText()));
    assertThat(enumerated).containsExactlyInAnyOrderElementsOf(server.keySet());
    doc.path("paths")
        .fields()
        .forEachRemaining(
            p ->
                p.getValue()
                    .fields()
                    .forEachRemaining(
                        m -> {
                          String op = m.getKey() + " " + p.getKey();
                          JsonNode responses = m.getValue().path("responses");
                          TreeSet<String> fromCodes = new TreeSet<>();
                          m.getValue()
                              .path("x-problem-codes")
                              .forEach(
                                  c -> {
                                    assertThat(server).as(op).containsKey(c.asText());
                                    fromCodes.add(Integer.toString(server.get(c.asText())));
                                  });
                          TreeSet<String> problemStatuses = new TreeSet<>();
                          responses
                              .fieldNames()
                              .forEachRemaining(
                                  s -> {
                                    if (!s.equals("default") && s.compareTo("400") >= 0) {
                                      problemStatuses.add(s);
                                    }
                                  });
                          assertThat(problemStatuses).as(op).isEqualTo(fromCodes);
                          assertThat(responses.has("default")).as(op).isTrue();
                        }));
  }

  @Test
  void everySchemaCompilesAndEveryExampleFitsItsSchema() throws IOException {
    JsonNode doc = document();
    OpenApiContract contract = OpenApiContract.get();
    List<String> names = new ArrayList<>();
    doc.at("/components/schemas").fieldNames().forEachRemaining(names::add);
    for (String name : names) {
      assertThat(contract.schema("/components/schemas/" + name)).as(name).isNotNull();
    }
    int examples = 0;
    for (OpenApiContract.Operation op : contract.operations()) {
      JsonNode media = op.node().at("/requestBody/content/application~1json");
      if (media.has("example")) {
        examples++;
        assertThat(errors(contract, media)).as(op.key() + " request example").isEmpty();
      }
      for (JsonNode response : op.node().path("responses")) {
        JsonNode json = response.at("/content/application~1json");
        if (json.has("example")) {
          examples++;
          assertThat(errors(contract, json)).as(op.key() + " answer example").isEmpty();
        }
      }
    }
    for (JsonNode response : doc.at("/components/responses")) {
      JsonNode problem = response.at("/content/application~1problem+json");
      if (problem.has("example")) {
        examples++;
        assertThat(errors(contract, problem)).as("problem example").isEmpty();
      }
    }
    assertThat(examples).isGreaterThan(30);
    // The check can fail: a problem without its code does not fit.
    ObjectNode noCode = MAPPER.createObjectNode().put("type", "/errors/x").put("status", 400);
    assertThat(contract.schema("/components/schemas/Problem").validate(noCode)).isNotEmpty();
  }

  private static List<Error> errors(OpenApiContract contract, JsonNode media) {
    return contract
        .schema(media.path("schema").path("$ref").asText().substring(1))
        .validate(media.get("example"));
  }

  @Test
  void theServerServesTheDocumentAndDocsHoldsTheSameCopy() throws IOException {
    byte[] main = Files.readAllBytes(MAIN_COPY);
    assertThat(Files.readString(DOCS_COPY, UTF_8))
        .as(
            "docs/openapi.json must equal reference-server/src/main/resources/openapi.json: copy it")
        .isEqualTo(new String(main, UTF_8));
    try (ServerHarness h = ServerHarness.start()) {
      Resp r = h.send("GET", "/openapi.json", null, null, Map.of());
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.header("Content-Type")).startsWith("application/json");
      assertThat(r.raw()).isEqualTo(new String(main, UTF_8));
    }
  }

  @Test
  void theApiReferenceIsGeneratedFromTheDocument() throws IOException {
    String generated = ApiReference.render(document());
    if (Boolean.getBoolean("regenerateApiReference")) {
      Files.writeString(ApiReference.FILE, generated, UTF_8);
    }
    assertThat(Files.exists(ApiReference.FILE) ? Files.readString(ApiReference.FILE, UTF_8) : "")
        .as(
            "docs/api-reference.md is stale: regenerate it with mvn -pl reference-server -am test"
                + " -Dtest=OpenApiDocumentTest -DregenerateApiReference=true"
                + " -Dsurefire.failIfNoSpecifiedTests=false")
        .isEqualTo(generated);
    for (OpenApiContract.Operation op : OpenApiContract.get().operations()) {
      assertThat(generated).contains("### " + op.key());
    }
  }
}
