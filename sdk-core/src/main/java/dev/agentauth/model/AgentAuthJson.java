package dev.agentauth.model;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.cfg.MutableCoercionConfig;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import com.fasterxml.jackson.databind.type.LogicalType;
import java.io.IOException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.chrono.IsoChronology;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.format.ResolverStyle;
import java.time.temporal.ChronoField;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.Objects;

/**
 * The one JSON configuration of the wire model, shared by the client SDK and the reference server,
 * and the timestamp format of the whole API.
 *
 * <p>Timestamps are {@link Instant}s, always written as UTC RFC 3339 with exactly three fraction
 * digits ({@code 2026-11-22T10:15:30.123Z}) and read from any RFC 3339 timestamp that has an
 * explicit offset ({@code Z} or {@code +02:00}). Sub-millisecond digits are dropped when writing.
 *
 * <pre>{@code
 * ObjectMapper client = AgentAuthJson.newObjectMapper();       // ignores unknown members
 * ObjectMapper server = AgentAuthJson.newStrictObjectMapper(); // rejects unknown members, wrong types
 * CheckRequest req = server.readValue(body, CheckRequest.class);
 * }</pre>
 *
 * <p>Mappers are thread-safe once returned; create one per component and reuse it.
 */
public final class AgentAuthJson {

  private static final DateTimeFormatter WRITE_FORMAT =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'", Locale.ROOT)
          .withZone(ZoneOffset.UTC);

  /** RFC 3339 {@code date-time}: seconds required, fraction optional, offset required. */
  private static final DateTimeFormatter READ_FORMAT =
      new DateTimeFormatterBuilder()
          .parseCaseInsensitive()
          .appendValue(ChronoField.YEAR, 4)
          .appendLiteral('-')
          .appendValue(ChronoField.MONTH_OF_YEAR, 2)
          .appendLiteral('-')
          .appendValue(ChronoField.DAY_OF_MONTH, 2)
          .appendLiteral('T')
          .appendValue(ChronoField.HOUR_OF_DAY, 2)
          .appendLiteral(':')
          .appendValue(ChronoField.MINUTE_OF_HOUR, 2)
          .appendLiteral(':')
          .appendValue(ChronoField.SECOND_OF_MINUTE, 2)
          .optionalStart()
          .appendFraction(ChronoField.NANO_OF_SECOND, 1, 9, true)
          .optionalEnd()
          .appendOffset("+HH:MM", "Z")
          .toFormatter(Locale.ROOT)
          .withChronology(IsoChronology.INSTANCE)
          .withResolverStyle(ResolverStyle.STRICT);

  private static final Instant MIN_WRITABLE = Instant.parse("0000-01-01T00:00:00Z");
  private static final Instant MAX_WRITABLE = Instant.parse("9999-12-31T23:59:59.999Z");

  private AgentAuthJson() {}

  /**
   * Returns a new mapper for the client side: wire model module registered, unknown members ignored
   * (so a newer service never breaks an older client), trailing tokens rejected.
   */
  public static ObjectMapper newObjectMapper() {
    return base().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();
  }

  /**
   * Returns a new mapper for reading requests on the server: unknown members, {@code null} for
   * primitives, numbers for enums, duplicate keys and trailing tokens fail, and scalars are never
   * coerced ({@code "5"} for an integer, {@code 5} for a string, {@code 1.5} for an integer, {@code
   * 1} or {@code "true"} for a boolean, {@code ""} for an object all fail). Failures are Jackson
   * {@link com.fasterxml.jackson.databind.JsonMappingException}s whose {@code getPath()} names the
   * offending member. Writing is the same as {@link #newObjectMapper()}.
   */
  public static ObjectMapper newStrictObjectMapper() {
    JsonMapper.Builder b =
        base()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS)
            .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION);
    b.withCoercionConfigDefaults(
        c ->
            c.setAcceptBlankAsEmpty(false)
                .setCoercion(CoercionInputShape.EmptyString, CoercionAction.Fail));
    b.withCoercionConfig(
        LogicalType.Integer,
        c ->
            fail(
                c,
                CoercionInputShape.String,
                CoercionInputShape.Float,
                CoercionInputShape.Boolean));
    b.withCoercionConfig(
        LogicalType.Float, c -> fail(c, CoercionInputShape.String, CoercionInputShape.Boolean));
    b.withCoercionConfig(
        LogicalType.Boolean,
        c ->
            fail(
                c,
                CoercionInputShape.String,
                CoercionInputShape.Integer,
                CoercionInputShape.Float));
    // Also covers the open wire enums, whose delegating creators read a String.
    b.withCoercionConfig(
        LogicalType.Textual,
        c ->
            fail(
                c,
                CoercionInputShape.Integer,
                CoercionInputShape.Float,
                CoercionInputShape.Boolean));
    return b.build();
  }

  private static void fail(MutableCoercionConfig config, CoercionInputShape... shapes) {
    for (CoercionInputShape shape : shapes) {
      config.setCoercion(shape, CoercionAction.Fail);
    }
    config.setCoercion(CoercionInputShape.EmptyString, CoercionAction.Fail);
  }

  private static JsonMapper.Builder base() {
    SimpleModule module = new SimpleModule("agentauth-wire");
    module.addSerializer(Instant.class, new InstantSerializer());
    module.addDeserializer(Instant.class, new InstantDeserializer());
    return JsonMapper.builder()
        .addModule(module)
        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
  }

  /**
   * Formats an instant the way the API writes every timestamp: UTC, exactly three fraction digits,
   * e.g. {@code 2026-11-22T10:15:30.000Z}. Digits below the millisecond are dropped (truncated
   * toward the past).
   *
   * @throws NullPointerException if {@code instant} is null
   * @throws IllegalArgumentException if the year is outside 0000–9999 (not representable in RFC
   *     3339)
   */
  public static String formatInstant(Instant instant) {
    Objects.requireNonNull(instant, "instant");
    Instant millis = instant.truncatedTo(ChronoUnit.MILLIS);
    if (millis.isBefore(MIN_WRITABLE) || millis.isAfter(MAX_WRITABLE)) {
      throw new IllegalArgumentException(
          "expected an instant in years 0000-9999 (RFC 3339), found: " + instant);
    }
    return WRITE_FORMAT.format(millis);
  }

  /**
   * Parses an RFC 3339 timestamp with an explicit offset ({@code 2026-11-22T10:15:30Z}, {@code
   * 2026-11-22T12:15:30.123456+02:00}); any number of fraction digits up to nine is kept.
   *
   * @throws NullPointerException if {@code text} is null
   * @throws IllegalArgumentException if {@code text} is not such a timestamp, for example one
   *     without an offset
   */
  public static Instant parseInstant(String text) {
    Objects.requireNonNull(text, "text");
    try {
      return OffsetDateTime.parse(text, READ_FORMAT).toInstant();
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(
          "expected an RFC 3339 timestamp with offset such as 2026-11-22T10:15:30.123Z, found: \""
              + text
              + "\"",
          e);
    }
  }

  private static final class InstantSerializer extends StdSerializer<Instant> {
    private static final long serialVersionUID = 1L;

    InstantSerializer() {
      super(Instant.class);
    }

    @Override
    public void serialize(Instant value, JsonGenerator gen, SerializerProvider provider)
        throws IOException {
      gen.writeString(formatInstant(value));
    }
  }

  private static final class InstantDeserializer extends StdScalarDeserializer<Instant> {
    private static final long serialVersionUID = 1L;

    InstantDeserializer() {
      super(Instant.class);
    }

    @Override
    public Instant deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      if (!p.hasToken(JsonToken.VALUE_STRING)) {
        return (Instant) ctxt.handleUnexpectedToken(Instant.class, p);
      }
      String text = p.getText();
      try {
        return parseInstant(text);
      } catch (IllegalArgumentException e) {
        return (Instant)
            ctxt.handleWeirdStringValue(
                Instant.class,
                text,
                "expected an RFC 3339 timestamp with offset such as 2026-11-22T10:15:30.123Z");
      }
    }
  }
}
