package dev.agentauth.client.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;

/**
 * Turns a successful answer's body into the request's value. The default reads the body with the
 * client's mapper into the response type. Not part of the public API.
 *
 * @param <T> the value type
 */
@FunctionalInterface
interface ResponseReader<T> {

  /**
   * Reads {@code body} (never empty).
   *
   * @throws IOException or a {@link RuntimeException} if the body is not what was expected; the
   *     transport reports either as a malformed response
   */
  T read(ObjectMapper mapper, byte[] body) throws IOException;
}
