package dev.agentauth.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;

/**
 * Body of the test-clock endpoint {@code POST /admin/v1/clock} (server started with {@code
 * --test-clock}): either {@code advance_seconds} or {@code set}. The clock never moves backward.
 * {@code null} members mean absent and are omitted when written.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ClockRequest(
    @JsonProperty("advance_seconds") Long advanceSeconds, @JsonProperty("set") Instant set) {

  /** Returns a request that moves the clock forward by {@code seconds}. */
  public static ClockRequest advance(long seconds) {
    return new ClockRequest(seconds, null);
  }

  /** Returns a request that sets the clock to {@code instant}. */
  public static ClockRequest setTo(Instant instant) {
    return new ClockRequest(null, instant);
  }
}
