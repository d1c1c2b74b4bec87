package dev.agentauth.cli;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Reads an RFC 3339 timestamp with an offset, e.g. {@code 2026-11-01T00:00:00Z}. */
final class Instants implements ITypeConverter<Instant> {
  @Override
  public Instant convert(String value) {
    try {
      return OffsetDateTime.parse(value.strip()).toInstant();
    } catch (DateTimeParseException e) {
      throw new TypeConversionException(
          "expected an RFC 3339 timestamp such as 2026-11-01T00:00:00Z, found '" + value + "'");
    }
  }
}
