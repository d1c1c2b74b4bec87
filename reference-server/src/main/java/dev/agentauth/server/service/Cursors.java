package dev.agentauth.server.service;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * Opaque pagination cursors bound to the filters they were issued for. A cursor is base64url({@code
 * v1|<filter fingerprint>|<last key>}); using it with other filters, or a cursor that was not
 * issued by this server, is a 400 naming {@code cursor}.
 */
public final class Cursors {
  private Cursors() {}

  /** Encodes the position after {@code lastKey} for a listing with {@code filters}. */
  public static String encode(String filters, String lastKey) {
    String raw = "v1|" + fingerprint(filters) + "|" + lastKey;
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(raw.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * The {@code next_cursor} of a page: the position after its last row (or where the page stopped
   * examining rows, see {@link dev.agentauth.server.store.Page#resumeAfter}), or null when no rows
   * follow.
   */
  public static <R> String next(
      String filters,
      dev.agentauth.server.store.Page<R> page,
      java.util.function.Function<R, String> key) {
    if (!page.hasMore()) {
      return null;
    }
    if (page.resumeAfter() != null) {
      return encode(filters, page.resumeAfter());
    }
    return encode(filters, key.apply(page.items().get(page.items().size() - 1)));
  }

  /** Decodes {@code cursor} (null → start) and checks it belongs to {@code filters}. */
  public static String decode(String cursor, String filters) {
    if (cursor == null) {
      return null;
    }
    String raw;
    try {
      raw = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw ServiceException.invalid("cursor", "is not a cursor issued by this server");
    }
    String[] parts = raw.split("\\|", 3);
    if (parts.length != 3 || !parts[0].equals("v1") || parts[2].isEmpty()) {
      throw ServiceException.invalid("cursor", "is not a cursor issued by this server");
    }
    if (!parts[1].equals(fingerprint(filters))) {
      throw ServiceException.invalid(
          "cursor",
          "was issued for other filters; repeat the same filters or start without a cursor");
    }
    return parts[2];
  }

  private static String fingerprint(String filters) {
    try {
      byte[] d =
          MessageDigest.getInstance("SHA-256").digest(filters.getBytes(StandardCharsets.UTF_8));
      return Base64.getUrlEncoder().withoutPadding().encodeToString(d).substring(0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
