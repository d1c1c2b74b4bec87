package dev.agentauth.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.client.internal.Backoff;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The jittered, capped exponential backoff between retries. */
class BackoffTest {

  @Test
  void retryNWaitsBetweenHalfAndAllOfItsExponentialBound() {
    Backoff low = new Backoff(Duration.ofMillis(200), Duration.ofSeconds(2), () -> 0.0);
    Backoff high = new Backoff(Duration.ofMillis(200), Duration.ofSeconds(2), () -> 1.0);

    assertThat(low.delay(1)).isEqualTo(Duration.ofMillis(100));
    assertThat(high.delay(1)).isEqualTo(Duration.ofMillis(200));
    assertThat(low.delay(3)).isEqualTo(Duration.ofMillis(400));
    assertThat(high.delay(3)).isEqualTo(Duration.ofMillis(800));
  }

  @Test
  void delaysAreCappedHoweverManyRetries() {
    Backoff high = new Backoff(Duration.ofMillis(200), Duration.ofSeconds(2), () -> 1.0);

    assertThat(high.delay(5)).isEqualTo(Duration.ofSeconds(2));
    assertThat(high.delay(60)).isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void defaultJitterStaysWithinBounds() {
    Backoff b = Backoff.defaults();
    for (int retry = 1; retry <= 6; retry++) {
      long bound = Math.min(200L << (retry - 1), 2000L);
      for (int i = 0; i < 200; i++) {
        assertThat(b.delay(retry).toMillis()).isBetween(bound / 2, bound);
      }
    }
  }

  @Test
  void retryNumbersStartAtOne() {
    assertThatThrownBy(() -> Backoff.defaults().delay(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("expected retry >= 1, found: 0");
  }
}
