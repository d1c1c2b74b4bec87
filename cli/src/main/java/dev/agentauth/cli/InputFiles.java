package dev.agentauth.cli;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.agentauth.model.AgentAuthJson;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Reads request files ({@code -f grant.yaml}): YAML or JSON, checked locally against the wire model
 * before anything is sent, so a typo fails at once with the field's path ({@code
 * scopes[1].constraints.max_per_dya: unknown field}) and exit status 2.
 */
final class InputFiles {
  private static final ObjectMapper JSON_READER =
      new ObjectMapper().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
  private static final ObjectMapper YAML_READER =
      YAMLMapper.builder(new YAMLFactory())
          .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
          .build();
  private static final ObjectMapper STRICT = AgentAuthJson.newStrictObjectMapper();

  private InputFiles() {}

  /**
   * Reads {@code file} ({@code -} for standard input) as a tree: YAML for {@code .yaml} and {@code
   * .yml}, JSON for {@code .json}; otherwise JSON when it starts with a brace or a bracket and
   * parses as JSON, else YAML.
   *
   * @throws CliException (usage) if it cannot be read or parsed
   */
  static JsonNode read(String file, InputStream stdin) {
    byte[] bytes;
    try {
      bytes = "-".equals(file) ? stdin.readAllBytes() : Files.readAllBytes(Path.of(file));
    } catch (IOException e) {
      throw CliException.usage("cannot read " + file + ": " + e.getClass().getSimpleName());
    }
    String name = file.toLowerCase(java.util.Locale.ROOT);
    boolean yamlName = name.endsWith(".yaml") || name.endsWith(".yml");
    String text = new String(bytes, java.nio.charset.StandardCharsets.UTF_8).stripLeading();
    boolean json =
        name.endsWith(".json") || (!yamlName && (text.startsWith("{") || text.startsWith("[")));
    JsonNode node;
    try {
      node = (json ? JSON_READER : YAML_READER).readTree(bytes);
    } catch (JsonProcessingException e) {
      if (json && !name.endsWith(".json")) {
        // not JSON after all: YAML flow style ("[{id: a}]") starts the same way
        node = readYaml(file, bytes, e);
      } else {
        throw notValid(file, json ? "JSON" : "YAML", e);
      }
    } catch (IOException e) {
      throw CliException.usage("cannot read " + file + ": " + e.getMessage());
    }
    if (node == null || node.isMissingNode() || node.isNull()) {
      throw CliException.usage(file + ": empty file");
    }
    return node;
  }

  private static JsonNode readYaml(String file, byte[] bytes, JsonProcessingException asJson) {
    try {
      return YAML_READER.readTree(bytes);
    } catch (IOException e) {
      throw notValid(file, "JSON", asJson);
    }
  }

  private static CliException notValid(String file, String format, JsonProcessingException e) {
    return CliException.usage(
        file + ": not valid " + format + location(e) + ": " + e.getOriginalMessage());
  }

  /**
   * Maps {@code node} onto the wire type {@code type}, rejecting unknown fields and wrong types.
   *
   * @param prefix path of {@code node} in the file ({@code ""} at the top, {@code [2]} in a list)
   * @throws CliException (usage) naming the field's path
   */
  static <T> T bind(String file, String prefix, JsonNode node, Class<T> type) {
    try {
      return STRICT.treeToValue(node, type);
    } catch (JsonMappingException e) {
      String path = join(prefix, path(e));
      throw CliException.usage(file + ": " + (path.isEmpty() ? "" : path + ": ") + problem(e));
    } catch (JsonProcessingException e) {
      throw CliException.usage(file + ": " + e.getOriginalMessage());
    }
  }

  /** {@code a.b[1].c} from Jackson's path references. */
  static String path(JsonMappingException e) {
    StringBuilder p = new StringBuilder();
    for (JsonMappingException.Reference r : e.getPath()) {
      if (r.getFieldName() != null) {
        if (p.length() > 0) {
          p.append('.');
        }
        p.append(r.getFieldName());
      } else if (r.getIndex() >= 0) {
        p.append('[').append(r.getIndex()).append(']');
      }
    }
    return p.toString();
  }

  static String join(String prefix, String path) {
    if (prefix.isEmpty()) {
      return path;
    }
    if (path.isEmpty() || path.startsWith("[")) {
      return prefix + path;
    }
    return prefix + "." + path;
  }

  private static String problem(JsonMappingException e) {
    if (e instanceof UnrecognizedPropertyException u) {
      Collection<Object> known = u.getKnownPropertyIds();
      TreeSet<String> names = new TreeSet<>();
      if (known != null) {
        known.forEach(k -> names.add(String.valueOf(k)));
      }
      return "unknown field"
          + (names.isEmpty() ? "" : " (expected one of " + String.join(", ", names) + ")");
    }
    if (e instanceof InvalidFormatException f) {
      return "expected " + expected(f.getTargetType()) + ", found " + f.getValue();
    }
    if (e instanceof MismatchedInputException m && m.getTargetType() != null) {
      return "expected " + expected(m.getTargetType());
    }
    return e.getOriginalMessage();
  }

  private static String expected(Class<?> type) {
    if (type == null) {
      return "another value";
    }
    if (type == Long.class || type == long.class || type == Integer.class || type == int.class) {
      return "an integer";
    }
    if (type == String.class) {
      return "a string";
    }
    if (type == Boolean.class || type == boolean.class) {
      return "true or false";
    }
    if (type == Instant.class) {
      return "an RFC 3339 timestamp such as 2026-12-01T00:00:00Z";
    }
    if (List.class.isAssignableFrom(type) || Collection.class.isAssignableFrom(type)) {
      return "a list";
    }
    if (Map.class.isAssignableFrom(type) || !type.getName().startsWith("java.")) {
      return "an object";
    }
    return type.getSimpleName();
  }

  private static String location(JsonProcessingException e) {
    if (e.getLocation() == null || e.getLocation().getLineNr() < 1) {
      return "";
    }
    return " at line " + e.getLocation().getLineNr();
  }
}
