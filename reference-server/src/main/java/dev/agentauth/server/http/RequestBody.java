package dev.agentauth.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.server.service.ServiceException;
import java.io.IOException;

/**
 * A parsed JSON request body: the raw tree (for opaque objects such as {@code metadata}) and the
 * typed record read from it with the strict mapper, with every parse failure turned into a 400 that
 * names the field.
 */
public final class RequestBody<T> {
  private final ObjectNode tree;
  private final T value;

  private RequestBody(ObjectNode tree, T value) {
    this.tree = tree;
    this.value = value;
  }

  /** The typed body. */
  public T value() {
    return value;
  }

  /** An object member of the raw body, or null when absent or JSON null. */
  public ObjectNode object(String field) {
    JsonNode n = tree.get(field);
    return n instanceof ObjectNode o ? o : null;
  }

  /**
   * Parses {@code bytes} as a JSON object and binds it to {@code type}. An empty body reads as
   * {@code {}} when {@code emptyAllowed}.
   */
  public static <T> RequestBody<T> parse(
      ObjectMapper strict, byte[] bytes, Class<T> type, boolean emptyAllowed) {
    JsonNode node;
    if (bytes.length == 0 || isBlank(bytes)) {
      if (!emptyAllowed) {
        throw ServiceException.invalid("body", "must be a JSON object");
      }
      node = strict.createObjectNode();
    } else {
      try {
        node = strict.readTree(bytes);
      } catch (JsonProcessingException e) {
        throw ServiceException.invalid(
            "body", "is not valid JSON: " + shown(e.getOriginalMessage()));
      } catch (IOException e) {
        throw ServiceException.invalid("body", "could not be read");
      }
    }
    if (!(node instanceof ObjectNode obj)) {
      throw ServiceException.invalid("body", "must be a JSON object");
    }
    String unpaired = UnpairedSurrogates.find(obj);
    if (unpaired != null) {
      throw ServiceException.invalid(
          unpaired, "contains an unpaired UTF-16 surrogate, which is not a Unicode character");
    }
    String nul = UnpairedSurrogates.findNul(obj);
    if (nul != null) {
      throw ServiceException.invalid(nul, "contains U+0000 (NUL), which the server does not store");
    }
    try {
      return new RequestBody<>(obj, strict.treeToValue(obj, type));
    } catch (UnrecognizedPropertyException e) {
      throw ServiceException.invalid(path(e), "is not a known field");
    } catch (InvalidFormatException e) {
      Class<?> t = e.getTargetType();
      if (t == String.class || t == Long.class || t == Boolean.class || t == Integer.class) {
        throw ServiceException.invalid(path(e), "has the wrong type" + expected(e));
      }
      throw ServiceException.invalid(
          path(e), "has an invalid value: " + shown(e.getOriginalMessage()));
    } catch (MismatchedInputException e) {
      throw ServiceException.invalid(path(e), "has the wrong type" + expected(e));
    } catch (JsonMappingException e) {
      throw ServiceException.invalid(path(e), "is invalid: " + shown(e.getOriginalMessage()));
    } catch (JsonProcessingException e) {
      throw ServiceException.invalid("body", "is invalid: " + shown(e.getOriginalMessage()));
    } catch (IllegalArgumentException e) {
      throw ServiceException.invalid("body", "is invalid: " + shown(e.getMessage()));
    }
  }

  /**
   * A parser's message as an answer may quote it: Jackson quotes the character it choked on, which
   * can be half of a surrogate pair (the bytes {@code ED B0 80}), and an answer must be Unicode.
   */
  private static String shown(String message) {
    return message == null ? null : UnpairedSurrogates.replace(message);
  }

  private static String expected(MismatchedInputException e) {
    Class<?> t = e.getTargetType();
    if (t == null) {
      return "";
    }
    String name = t.getSimpleName();
    if (t == Long.class || t == long.class || t == Integer.class || t == int.class) {
      name = "integer";
    } else if (t == Boolean.class || t == boolean.class) {
      name = "boolean";
    } else if (t == String.class
        || t.getPackageName().equals("dev.agentauth.model") && name.length() > 0 && !t.isRecord()) {
      name = "string";
    } else if (java.util.List.class.isAssignableFrom(t)) {
      name = "array";
    } else if (java.util.Map.class.isAssignableFrom(t) || t.isRecord()) {
      name = "object";
    }
    return ": expected " + name;
  }

  /** Renders a Jackson path as {@code scopes[1].name}. */
  static String path(JsonMappingException e) {
    StringBuilder sb = new StringBuilder();
    for (JsonMappingException.Reference ref : e.getPath()) {
      if (ref.getFieldName() != null) {
        if (sb.length() > 0) {
          sb.append('.');
        }
        sb.append(ref.getFieldName());
      } else if (ref.getIndex() >= 0) {
        sb.append('[').append(ref.getIndex()).append(']');
      }
    }
    String p = sb.toString();
    if (e instanceof UnrecognizedPropertyException u) {
      String prop = u.getPropertyName();
      if (!p.equals(prop) && !p.endsWith("." + prop)) {
        p = p.isEmpty() ? prop : p + "." + prop;
      }
    }
    return p.isEmpty() ? "body" : p;
  }

  private static boolean isBlank(byte[] bytes) {
    for (byte b : bytes) {
      if (b != ' ' && b != '\n' && b != '\r' && b != '\t') {
        return false;
      }
    }
    return true;
  }
}
