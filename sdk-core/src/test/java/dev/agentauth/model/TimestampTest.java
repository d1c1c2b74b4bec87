package dev.agentauth.model;

import static dev.agentauth.model.WireJson.CLIENT;
import static dev.agentauth.model.WireJson.STRICT;
import static dev.agentauth.model.WireJson.read;
import static dev.agentauth.model.WireJson.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class TimestampTest {

  @Test
  void formatWritesThreeFractionDigitsEvenForWholeSeconds() {
    assertThat(AgentAuthJson.formatInstant(Instant.parse("2026-11-22T10:15:30Z")))
        .isEqualTo("2026-11-22T10:15:30.000Z");
  }

  @Test
  void formatWritesMilliseconds() {
    assertThat(AgentAuthJson.formatInstant(Instant.parse("2026-11-22T10:15:30.123Z")))
        .isEqualTo("2026-11-22T10:15:30.123Z");
    assertThat(AgentAuthJson.formatInstant(Instant.parse("2026-11-22T10:15:30.120Z")))
        .isEqualTo("2026-11-22T10:15:30.120Z");
  }

  @Test
  void formatTruncatesSubMillisecondDigitsTowardThePast() {
    assertThat(AgentAuthJson.formatInstant(Instant.parse("2026-11-22T10:15:30.123999999Z")))
        .isEqualTo("2026-11-22T10:15:30.123Z");
    assertThat(AgentAuthJson.formatInstant(Instant.parse("1969-12-31T23:59:59.9999Z")))
        .isEqualTo("1969-12-31T23:59:59.999Z");
  }

  @Test
  void formatRejectsYearsRfc3339CannotWrite() {
    assertThatThrownBy(() -> AgentAuthJson.formatInstant(Instant.MAX))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("0000-9999");
    assertThatThrownBy(() -> AgentAuthJson.formatInstant(Instant.parse("-0001-01-01T00:00:00Z")))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void parseConvertsOffsetsToUtc() {
    assertThat(AgentAuthJson.parseInstant("2026-11-22T12:15:30.123+02:00"))
        .isEqualTo(Instant.parse("2026-11-22T10:15:30.123Z"));
    assertThat(AgentAuthJson.parseInstant("2026-11-22T05:45:30-04:30"))
        .isEqualTo(Instant.parse("2026-11-22T10:15:30Z"));
    assertThat(AgentAuthJson.parseInstant("2026-11-22T10:15:30-00:00"))
        .isEqualTo(Instant.parse("2026-11-22T10:15:30Z"));
  }

  @Test
  void parseAcceptsAnyFractionLengthAndLowercaseSeparators() {
    assertThat(AgentAuthJson.parseInstant("2026-11-22T10:15:30Z"))
        .isEqualTo(Instant.parse("2026-11-22T10:15:30Z"));
    assertThat(AgentAuthJson.parseInstant("2026-11-22T10:15:30.5Z"))
        .isEqualTo(Instant.parse("2026-11-22T10:15:30.500Z"));
    assertThat(AgentAuthJson.parseInstant("2026-11-22t10:15:30.123456789z"))
        .isEqualTo(Instant.parse("2026-11-22T10:15:30.123456789Z"));
  }

  @Test
  void parseRejectsTimestampWithoutOffset() {
    assertThatThrownBy(() -> AgentAuthJson.parseInstant("2026-11-22T10:15:30.123"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("with offset")
        .hasMessageContaining("found: \"2026-11-22T10:15:30.123\"");
  }

  @Test
  void parseRejectsWhatRfc3339DoesNotAllow() {
    for (String bad :
        new String[] {
          "2026-11-22T10:15Z", // no seconds
          "2026-11-22 10:15:30Z", // space separator
          "2026-02-30T00:00:00Z", // no such day
          "2026-11-22T24:00:00Z",
          "2026-11-22T10:15:30+0200", // offset without colon
          "2026-11-22T10:15:30.Z",
          "2026-11-22",
          ""
        }) {
      assertThatThrownBy(() -> AgentAuthJson.parseInstant(bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void parseThenFormatNormalizesToUtcMilliseconds() {
    assertThat(AgentAuthJson.formatInstant(AgentAuthJson.parseInstant("2026-11-22T12:15:30+02:00")))
        .isEqualTo("2026-11-22T10:15:30.000Z");
  }

  @Test
  void mappersWriteInstantMembersAsUtcMilliseconds() {
    assertThat(write(new ClockResponse(Instant.parse("2026-11-22T10:15:30Z"))))
        .isEqualTo("{\"now\":\"2026-11-22T10:15:30.000Z\"}");
    assertThat(read("{\"now\":\"2026-11-22T11:15:30.123+01:00\"}", ClockResponse.class))
        .isEqualTo(new ClockResponse(Instant.parse("2026-11-22T10:15:30.123Z")));
  }

  @Test
  void mappersRejectTimestampWithoutOffsetNamingTheMember() {
    for (var mapper : new com.fasterxml.jackson.databind.ObjectMapper[] {CLIENT, STRICT}) {
      assertThatThrownBy(
              () -> mapper.readValue("{\"set\":\"2026-11-22T10:15:30\"}", ClockRequest.class))
          .isInstanceOfSatisfying(
              InvalidFormatException.class,
              e -> {
                assertThat(e.getPath()).hasSize(1);
                assertThat(e.getPath().get(0).getFieldName()).isEqualTo("set");
                assertThat(e.getMessage()).contains("RFC 3339");
              });
    }
  }

  @Test
  void mappersRejectNumericTimestamps() {
    for (var mapper : new com.fasterxml.jackson.databind.ObjectMapper[] {CLIENT, STRICT}) {
      assertThatThrownBy(() -> mapper.readValue("{\"now\":1700000000}", ClockResponse.class))
          .isInstanceOf(MismatchedInputException.class);
    }
  }
}
