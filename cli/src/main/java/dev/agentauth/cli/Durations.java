package dev.agentauth.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Reads a positive duration: {@code 30s}, {@code 15m}, {@code 12h}, {@code 7d}, {@code 500ms} or
 * ISO-8601 ({@code PT30S}).
 */
final class Durations implements ITypeConverter<Duration> {
  private static final Pattern SHORT = Pattern.compile("(\\d{1,9})(ms|s|m|h|d)");

  @Override
  public Duration convert(String value) {
    return parse(value);
  }

  static Duration parse(String value) {
    Matcher m = SHORT.matcher(value.strip());
    Duration d;
    if (m.matches()) {
      long n = Long.parseLong(m.group(1));
      d =
          switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofDays(n);
          };
    } else {
      try {
        d = Duration.parse(value.strip());
      } catch (DateTimeParseException e) {
        throw new TypeConversionException(
            "expected a duration such as 30s, 15m, 12h, 7d or PT30S, found '" + value + "'");
      }
    }
    if (d.isZero() || d.isNegative()) {
      throw new TypeConversionException("expected a positive duration, found '" + value + "'");
    }
    return d;
  }
}
