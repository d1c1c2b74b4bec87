package dev.agentauth.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * Response bodies shared by the MockWebServer tests and the WireMock contract stubs: the files of
 * {@code src/test/resources/__files}.
 */
final class Fixtures {
  private Fixtures() {}

  static String body(String name) {
    try (InputStream in = Fixtures.class.getResourceAsStream("/__files/" + name)) {
      if (in == null) {
        throw new IllegalArgumentException("no fixture __files/" + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
