package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * Shared machinery of the open wire enums ({@link Decision}, {@link Reason}, ...): a value carries
 * the raw wire string, and the matching {@code Known} constant when the SDK knows the name. Unknown
 * names never fail deserialization; they are kept verbatim so they serialize back unchanged.
 *
 * <p>Equality, hash code and {@code toString()} are those of the raw wire string (and the concrete
 * type).
 */
abstract class WireEnum<K extends Enum<K> & WireEnum.WireName> {

  /** Implemented by every nested {@code Known} enum: the constant's exact wire string. */
  interface WireName {
    String wireName();
  }

  private final String value;
  private final K known;

  WireEnum(String value, K known) {
    this.value = Objects.requireNonNull(value, "value");
    this.known = known;
  }

  /** Returns the exact string used on the wire, known or not. */
  @JsonValue
  public final String value() {
    return value;
  }

  /** Returns whether this SDK version knows the wire value. */
  public final boolean isKnown() {
    return known != null;
  }

  /** Returns the known constant, or empty for a value this SDK version does not know. */
  public final Optional<K> known() {
    return Optional.ofNullable(known);
  }

  @Override
  public final boolean equals(Object o) {
    return o == this
        || (o != null && o.getClass() == getClass() && value.equals(((WireEnum<?>) o).value));
  }

  @Override
  public final int hashCode() {
    return value.hashCode();
  }

  @Override
  public final String toString() {
    return value;
  }

  /**
   * One instance per known constant of a wire enum type, plus the lookup used by its {@code of}
   * factory. Declare it before the type's public constants.
   */
  static final class Registry<K extends Enum<K> & WireName, T extends WireEnum<K>> {
    private final Map<K, T> byKnown;
    private final Map<String, T> byWireName = new HashMap<>();
    private final BiFunction<String, K, T> factory;

    Registry(Class<K> knownType, BiFunction<String, K, T> factory) {
      this.factory = factory;
      this.byKnown = new EnumMap<>(knownType);
      for (K k : knownType.getEnumConstants()) {
        T instance = factory.apply(k.wireName(), k);
        byKnown.put(k, instance);
        if (byWireName.put(k.wireName(), instance) != null) {
          throw new IllegalStateException("duplicate wire name " + k.wireName());
        }
      }
    }

    /** Returns the shared instance of a known constant. */
    T get(K known) {
      return byKnown.get(known);
    }

    /** Returns the shared instance for a known wire name, or a new one carrying the raw string. */
    T of(String value) {
      Objects.requireNonNull(value, "value");
      T instance = byWireName.get(value);
      return instance != null ? instance : factory.apply(value, null);
    }
  }
}
