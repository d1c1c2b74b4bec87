package dev.agentauth.verifier;

/**
 * Thrown by {@link Canonicalizer} when a JSON value has no canonical form: a number that is not an
 * integer within ±(2<sup>53</sup>−1), a string holding a lone UTF-16 surrogate, a node that is not
 * plain JSON (binary, POJO, missing), or nesting deeper than the supported limit.
 *
 * <p>The message starts with the JSON path of the offending value ({@code $.context.amount}, {@code
 * $.scopes[2]}); {@link #path()} returns it alone.
 */
public final class CanonicalizationException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** The JSON path of the offending value. */
  private final String path;

  CanonicalizationException(String path, String reason) {
    super(path + ": " + reason);
    this.path = path;
  }

  /**
   * Returns the JSON path of the value that could not be canonicalized, such as {@code
   * $.context.amount}.
   *
   * @return the path, starting with {@code $}
   */
  public String path() {
    return path;
  }
}
