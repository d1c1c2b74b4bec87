package dev.agentauth.model;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Defensive copies for record components. Unlike {@code List.copyOf}, these keep {@code null}
 * elements and values (valid JSON, e.g. {@code {"x": null}} in {@code metadata}) and keep map
 * insertion order.
 */
final class Copies {
  private Copies() {}

  /** Unmodifiable copy, or {@code null} for {@code null} (requests: absent stays absent). */
  static <T> List<T> list(List<T> list) {
    return list == null ? null : Collections.unmodifiableList(new ArrayList<>(list));
  }

  /** Unmodifiable copy; {@code null} becomes an empty list (responses). */
  static <T> List<T> listOrEmpty(List<T> list) {
    return list == null ? List.of() : list(list);
  }

  /** Unmodifiable insertion-ordered copy, or {@code null} for {@code null}. */
  static <V> Map<String, V> map(Map<String, V> map) {
    return map == null ? null : Collections.unmodifiableMap(new LinkedHashMap<>(map));
  }

  /** Unmodifiable insertion-ordered copy; {@code null} becomes an empty map (responses). */
  static <V> Map<String, V> mapOrEmpty(Map<String, V> map) {
    return map == null ? Map.of() : map(map);
  }

  /**
   * Deep unmodifiable copy of an opaque JSON object ({@code metadata}, {@code context}): nested
   * maps and lists are copied too, so the record is immutable all the way down. {@code null} stays
   * {@code null}.
   */
  static Map<String, Object> json(Map<String, Object> object) {
    return object == null ? null : jsonObject(object);
  }

  /** Like {@link #json} but {@code null} becomes an empty map (responses). */
  static Map<String, Object> jsonOrEmpty(Map<String, Object> object) {
    return object == null ? Map.of() : jsonObject(object);
  }

  private static Map<String, Object> jsonObject(Map<?, ?> object) {
    Map<String, Object> copy = new LinkedHashMap<>();
    for (Map.Entry<?, ?> e : object.entrySet()) {
      copy.put(e.getKey() == null ? null : e.getKey().toString(), jsonValue(e.getValue()));
    }
    return Collections.unmodifiableMap(copy);
  }

  private static Object jsonValue(Object value) {
    if (value instanceof Map<?, ?> m) {
      return jsonObject(m);
    }
    if (value instanceof List<?> l) {
      List<Object> copy = new ArrayList<>(l.size());
      for (Object o : l) {
        copy.add(jsonValue(o));
      }
      return Collections.unmodifiableList(copy);
    }
    return value;
  }
}
