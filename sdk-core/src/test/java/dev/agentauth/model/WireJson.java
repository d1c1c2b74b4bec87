package dev.agentauth.model;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;

/** Test helpers: both mappers, and round-trip assertions against literal JSON. */
final class WireJson {
  static final ObjectMapper CLIENT = AgentAuthJson.newObjectMapper();
  static final ObjectMapper STRICT = AgentAuthJson.newStrictObjectMapper();

  private WireJson() {}

  /** Literal JSON (possibly pretty) in the compact form the mapper writes; order and nulls kept. */
  static String compact(String json) {
    try {
      return CLIENT.writeValueAsString(CLIENT.readTree(json));
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** An insertion-ordered map from alternating keys and values. */
  static Map<String, Object> ordered(Object... keysAndValues) {
    Map<String, Object> map = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      map.put((String) keysAndValues[i], keysAndValues[i + 1]);
    }
    return map;
  }

  static String write(Object value) {
    try {
      return CLIENT.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  static <T> T read(String json, Class<T> type) {
    try {
      return CLIENT.readValue(json, type);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  static <T> T readStrict(String json, Class<T> type) {
    try {
      return STRICT.readValue(json, type);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Asserts that {@code json} reads (with both mappers) as {@code expected}, and that {@code
   * expected} writes exactly {@code json}: same members, same order, same nulls.
   */
  static <T> T assertRoundTrip(String json, Class<T> type, T expected) {
    T client = read(json, type);
    assertThat(client).isEqualTo(expected);
    assertThat(readStrict(json, type)).isEqualTo(expected);
    assertThat(write(expected)).isEqualTo(compact(json));
    return client;
  }
}
