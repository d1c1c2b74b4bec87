package dev.agentauth.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes {@code docs/api-reference.md}, the reference for people, from the OpenAPI document alone:
 * every operation by tag with who may call it, its parameters, its request and response examples
 * and the problem codes it answers, then every schema with its fields. {@code OpenApiDocumentTest}
 * keeps the committed file equal to {@link #render}; run it with {@code
 * -DregenerateApiReference=true}, or this class's {@code main}, to rewrite it.
 */
public final class ApiReference {
  /** The committed reference, from the module directory. */
  static final Path FILE = Path.of("..", "docs", "api-reference.md");

  private static final ObjectMapper MAPPER =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private ApiReference() {}

  public static void main(String[] args) throws IOException {
    Files.writeString(FILE, render(document()), StandardCharsets.UTF_8);
  }

  /** The document on the class path. */
  static JsonNode document() {
    try (InputStream in =
        ApiReference.class.getClassLoader().getResourceAsStream(OpenApiContract.RESOURCE)) {
      return MAPPER.readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The reference for {@code doc}. */
  static String render(JsonNode doc) {
    StringBuilder out = new StringBuilder();
    out.append("# HTTP API reference\n\n");
    out.append(
        "Generated from the server's OpenAPI 3.1 document, [openapi.json](openapi.json) (also"
            + " served at `GET /openapi.json`); do not edit by hand. After changing the"
            + " document, regenerate with `mvn -pl reference-server -am test"
            + " -Dtest=OpenApiDocumentTest -DregenerateApiReference=true"
            + " -Dsurefire.failIfNoSpecifiedTests=false`.\n\n");
    out.append(doc.path("info").path("description").asText()).append("\n\n");
    out.append("## Authentication\n\n");
    doc.path("components")
        .path("securitySchemes")
        .fields()
        .forEachRemaining(
            s ->
                out.append("- **")
                    .append(s.getKey())
                    .append("** (HTTP ")
                    .append(s.getValue().path("scheme").asText())
                    .append("): ")
                    .append(s.getValue().path("description").asText())
                    .append('\n'));
    out.append("\n## Endpoints\n\n| Method | Path | Who may call | Summary |\n|---|---|---|---|\n");
    Map<String, List<Map.Entry<String, JsonNode>>> byTag = new LinkedHashMap<>();
    doc.path("tags").forEach(t -> byTag.put(t.path("name").asText(), new ArrayList<>()));
    doc.path("paths")
        .fields()
        .forEachRemaining(
            p ->
                p.getValue()
                    .fields()
                    .forEachRemaining(
                        m -> {
                          String key = m.getKey().toUpperCase() + " " + p.getKey();
                          byTag
                              .computeIfAbsent(
                                  m.getValue().path("tags").path(0).asText(),
                                  t -> new ArrayList<>())
                              .add(Map.entry(key, m.getValue()));
                          out.append("| ")
                              .append(m.getKey().toUpperCase())
                              .append(" | [`")
                              .append(p.getKey())
                              .append("`](#")
                              .append(anchor(key))
                              .append(") | ")
                              .append(who(m.getValue()))
                              .append(" | ")
                              .append(m.getValue().path("summary").asText())
                              .append(" |\n");
                        }));
    for (Map.Entry<String, List<Map.Entry<String, JsonNode>>> tag : byTag.entrySet()) {
      if (tag.getValue().isEmpty()) {
        continue;
      }
      out.append("\n## ").append(tagTitle(doc, tag.getKey())).append('\n');
      for (Map.Entry<String, JsonNode> op : tag.getValue()) {
        operation(out, doc, op.getKey(), op.getValue());
      }
    }
    out.append("\n## Schemas\n");
    doc.path("components")
        .path("schemas")
        .fields()
        .forEachRemaining(s -> schema(out, s.getKey(), s.getValue()));
    return out.toString();
  }

  private static String tagTitle(JsonNode doc, String tag) {
    for (JsonNode t : doc.path("tags")) {
      if (t.path("name").asText().equals(tag)) {
        return tag + ": " + t.path("description").asText();
      }
    }
    return tag;
  }

  private static String who(JsonNode op) {
    String access = op.path("x-agentauth-access").asText();
    return switch (access) {
      case "API_KEY" -> {
        List<String> roles = new ArrayList<>();
        op.path("x-agentauth-roles").forEach(r -> roles.add(r.asText()));
        yield "API key: " + String.join(", ", roles);
      }
      case "ADMIN" -> "admin token";
      case "METRICS" -> "anyone, or the metrics token when set";
      default -> "anyone";
    };
  }

  private static void operation(StringBuilder out, JsonNode doc, String key, JsonNode op) {
    out.append("\n### ").append(key).append("\n\n");
    out.append("**").append(op.path("summary").asText()).append(".** ");
    out.append(op.path("description").asText()).append("\n\n");
    out.append("Who may call: ").append(who(op)).append(".\n");
    List<JsonNode> params = new ArrayList<>();
    op.path("parameters")
        .forEach(p -> params.add(p.has("$ref") ? doc.at(p.get("$ref").asText().substring(1)) : p));
    if (!params.isEmpty()) {
      out.append("\n| Parameter | In | Description |\n|---|---|---|\n");
      for (JsonNode p : params) {
        out.append("| `")
            .append(p.path("name").asText())
            .append("` | ")
            .append(p.path("in").asText())
            .append(p.path("required").asBoolean() ? ", required" : "")
            .append(" | ")
            .append(cell(p.path("description").asText()))
            .append(" |\n");
      }
    }
    JsonNode body = op.path("requestBody");
    if (!body.isMissingNode()) {
      JsonNode media = body.path("content").path("application/json");
      out.append("\nRequest body")
          .append(body.path("required").asBoolean() ? "" : " (optional)")
          .append(": ")
          .append(type(media.path("schema")))
          .append(".\n");
      example(out, media);
    }
    out.append("\n| Status | Answer |\n|---|---|\n");
    List<String> codes = new ArrayList<>();
    op.path("x-problem-codes").forEach(c -> codes.add(c.asText()));
    op.path("responses")
        .fields()
        .forEachRemaining(
            r -> {
              JsonNode resp = r.getValue();
              if (resp.has("$ref")) {
                resp = doc.at(resp.get("$ref").asText().substring(1));
              }
              String answer;
              if (r.getKey().equals("default")) {
                answer = "Transport-level problems any endpoint may answer";
              } else if (resp.path("content").has("application/problem+json")) {
                List<String> here = new ArrayList<>();
                for (String c : codes) {
                  if (doc.path("x-problem-code-status").path(c).asText().equals(r.getKey())) {
                    here.add("`" + c + "`");
                  }
                }
                answer = "Problem: " + String.join(", ", here);
              } else {
                JsonNode content = resp.path("content");
                String media = content.fieldNames().hasNext() ? content.fieldNames().next() : "";
                answer =
                    resp.path("description").asText()
                        + ": "
                        + (media.equals("application/json")
                            ? type(content.path(media).path("schema"))
                            : "`" + media + "`");
              }
              out.append("| ").append(r.getKey()).append(" | ").append(answer).append(" |\n");
            });
    op.path("responses")
        .fields()
        .forEachRemaining(
            r -> {
              JsonNode media = r.getValue().path("content").path("application/json");
              if (media.has("example")) {
                out.append("\nExample ").append(r.getKey()).append(" answer:\n");
                example(out, media);
              }
            });
  }

  private static void example(StringBuilder out, JsonNode media) {
    if (media.has("example")) {
      try {
        out.append("\n```json\n")
            .append(MAPPER.writeValueAsString(media.get("example")).replace("\r\n", "\n"))
            .append("\n```\n");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  private static void schema(StringBuilder out, String name, JsonNode s) {
    out.append("\n### ").append(name).append("\n\n");
    if (s.has("description")) {
      out.append(s.get("description").asText()).append("\n\n");
    }
    if (s.has("oneOf")) {
      List<String> kinds = new ArrayList<>();
      s.get("oneOf").forEach(k -> kinds.add(type(k)));
      out.append("One of ").append(String.join(", ", kinds));
      if (s.has("discriminator")) {
        out.append(", told apart by `")
            .append(s.path("discriminator").path("propertyName").asText())
            .append('`');
      }
      out.append(".\n");
      return;
    }
    JsonNode props = s.path("properties");
    if (!props.isObject() || props.isEmpty()) {
      out.append("Type: ").append(type(s)).append(".\n");
      return;
    }
    List<String> required = new ArrayList<>();
    s.path("required").forEach(r -> required.add(r.asText()));
    out.append("| Field | Type | Required | Description |\n|---|---|---|---|\n");
    props
        .fields()
        .forEachRemaining(
            p ->
                out.append("| `")
                    .append(p.getKey())
                    .append("` | ")
                    .append(type(p.getValue()))
                    .append(" | ")
                    .append(required.contains(p.getKey()) ? "yes" : "no")
                    .append(" | ")
                    .append(cell(p.getValue().path("description").asText()))
                    .append(" |\n"));
    if (s.path("additionalProperties").isBoolean() && !s.get("additionalProperties").asBoolean()) {
      out.append("\nNo other members.\n");
    }
  }

  /** A short type: a link to a schema, a JSON type (with `null`), a list, or a union. */
  static String type(JsonNode s) {
    if (s.has("$ref")) {
      String name = s.get("$ref").asText().substring(s.get("$ref").asText().lastIndexOf('/') + 1);
      return "[" + name + "](#" + name.toLowerCase() + ")";
    }
    for (String union : List.of("oneOf", "anyOf")) {
      if (s.has(union)) {
        List<String> kinds = new ArrayList<>();
        s.get(union).forEach(k -> kinds.add(type(k)));
        return String.join(" or ", kinds);
      }
    }
    if (s.has("const")) {
      return "`" + s.get("const").asText() + "`";
    }
    List<String> types = new ArrayList<>();
    if (s.path("type").isArray()) {
      s.get("type").forEach(t -> types.add(t.asText()));
    } else if (s.has("type")) {
      types.add(s.get("type").asText());
    }
    List<String> out = new ArrayList<>();
    for (String t : types) {
      if (t.equals("array")) {
        out.add("array of " + type(s.path("items")));
      } else if (t.equals("string") && s.has("enum")) {
        List<String> values = new ArrayList<>();
        s.get("enum").forEach(v -> values.add(v.isNull() ? "null" : "`" + v.asText() + "`"));
        values.remove("null");
        out.add("one of " + String.join(", ", values));
      } else if (t.equals("object") && s.path("additionalProperties").isObject()) {
        out.add("map of " + type(s.get("additionalProperties")));
      } else {
        out.add(t);
      }
    }
    return out.isEmpty() ? "any" : String.join(" or ", out);
  }

  private static String cell(String text) {
    return text.replace("|", "\\|").replace("\n", " ");
  }

  private static String anchor(String heading) {
    return heading.toLowerCase().replaceAll("[^a-z0-9 _-]", "").replace(' ', '-');
  }
}
