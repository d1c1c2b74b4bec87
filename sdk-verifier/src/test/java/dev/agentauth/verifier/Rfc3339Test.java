package dev.agentauth.verifier;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class Rfc3339Test {

  @Test
  void leapDaysFollowTheGregorianRules() {
    assertThat(Rfc3339.parse("2024-02-29T00:00:00Z"))
        .isEqualTo(Instant.parse("2024-02-29T00:00:00Z"));
    assertThat(Rfc3339.parse("2000-02-29T00:00:00Z")).isNotNull();
    assertThat(Rfc3339.parse("1900-02-29T00:00:00Z")).isNull();
    assertThat(Rfc3339.parse("2026-02-29T00:00:00Z")).isNull();
    assertThat(Rfc3339.parse("2026-04-31T00:00:00Z")).isNull();
  }

  @Test
  void offsetsAreAppliedAndFractionsKeptToTheNanosecond() {
    assertThat(Rfc3339.parse("2026-06-01T12:00:00.5+01:30"))
        .isEqualTo(Instant.parse("2026-06-01T10:30:00.500Z"));
    assertThat(Rfc3339.parse("2026-06-01T00:00:00.123456789123-00:01"))
        .isEqualTo(Instant.parse("2026-06-01T00:01:00.123456789Z"));
    assertThat(Rfc3339.parse("0000-01-01T00:00:00Z"))
        .isEqualTo(Instant.parse("0000-01-01T00:00:00Z"));
    assertThat(Rfc3339.parse("9999-12-31T23:59:59.999Z"))
        .isEqualTo(Instant.parse("9999-12-31T23:59:59.999Z"));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "2026-06-01T11:00:00",
        "2026-06-01T11:00:00.Z",
        "2026-06-01T11:00:60Z",
        "2026-06-01T11:00:00+1:00",
        "2026-06-01T11:00:00+01:0a",
        "2026-06-01X11:00:00Z"
      })
  void incompleteOrInvalidInstantsAreRejected(String text) {
    assertThat(Rfc3339.parse(text)).isNull();
  }

  @Test
  void agreesWithJavaTimeOnRandomInstants() {
    Random random = new Random(42);
    DateTimeFormatter format = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSSSSSxxx");
    for (int i = 0; i < 5_000; i++) {
      Instant instant =
          Instant.ofEpochSecond(
              random.nextInt(Integer.MAX_VALUE) * 4L, random.nextInt(1_000_000_000));
      ZoneOffset offset = ZoneOffset.ofTotalSeconds((random.nextInt(47) - 23) * 1800);
      String text = OffsetDateTime.ofInstant(instant, offset).format(format);

      assertThat(Rfc3339.parse(text)).as(text).isEqualTo(instant);
    }
  }
}
