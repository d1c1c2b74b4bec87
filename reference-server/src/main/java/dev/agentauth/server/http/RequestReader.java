package dev.agentauth.server.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.model.AgentAuthJson;
import dev.agentauth.server.service.Caller;
import dev.agentauth.server.service.ErrorCode;
import dev.agentauth.server.service.MutationRunner;
import dev.agentauth.server.service.ServiceException;
import dev.agentauth.server.store.Store;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;

/**
 * Everything read off a request before a service operation runs: the request id, the body within
 * its 1 MiB limit, strict JSON parsing, the paging and {@code wait} parameters, and what a mutation
 * needs (Idempotency-Key and the request's hash). Every failure is a {@link ServiceException}
 * naming the field.
 */
final class RequestReader {
  static final int MAX_BODY = 1024 * 1024;

  /**
   * The largest announced body still read and thrown away before its 413, once the caller has
   * passed authentication. A server that answers and closes while the client is still sending makes
   * the client's TCP stack see a reset, and most clients then report a dropped connection instead
   * of the 413; draining a body just over the limit lets the answer arrive. The drain is bounded
   * like any body read (the connection's {@link BodyDeadline} and {@link #BODIES_PER_WORKSPACE}). A
   * larger announced body, or any body of an unauthenticated request, is never read: the answer
   * goes out at once with {@code Connection: close}.
   */
  static final long DRAIN_LIMIT = 2L * MAX_BODY;

  /**
   * Request bodies of one workspace that may be arriving at once: a body still on its way holds a
   * request thread while it arrives (at most the body timeout), so one workspace may hold at most
   * this many of the server's request threads that way; beyond them a request is refused at once
   * (429 {@code rate_limited}, {@code Retry-After: 1}). A body that has arrived in full by the time
   * it is read is not counted.
   */
  static final int BODIES_PER_WORKSPACE = 16;

  private static final Pattern REQUEST_ID = Pattern.compile("[A-Za-z0-9._:-]{1,128}");
  private static final String BODY = "agentauth.body";
  private static final String OVERSIZED = "agentauth.body.oversized";
  private static final String DRAINED = "agentauth.body.drained";
  static final String REQUEST_ID_ATTRIBUTE = "request_id";

  private final ObjectMapper strict = AgentAuthJson.newStrictObjectMapper();
  private final WorkspaceLimiter arriving =
      new WorkspaceLimiter(BODIES_PER_WORKSPACE, Duration.ZERO, 0, "request bodies arriving");

  /**
   * Starts a request: keeps the client's X-Request-Id when it is well-formed (else makes one) and
   * echoes it, and refuses an announced body over {@link #DRAIN_LIMIT} (or over the limit and held
   * back for {@code Expect: 100-continue}) at once, before anything reads it. A body announced over
   * the limit but within the drain limit is refused after authentication ({@link #receive}).
   */
  void start(Context c) {
    String id = requestId(c.header("X-Request-Id"));
    c.attribute(REQUEST_ID_ATTRIBUTE, id);
    c.header("X-Request-Id", id);
    String length = c.header("Content-Length");
    if (length != null) {
      try {
        long announced = Long.parseLong(length.trim());
        if (announced > MAX_BODY) {
          boolean waiting = "100-continue".equalsIgnoreCase(c.header("Expect"));
          if (waiting || announced > DRAIN_LIMIT) {
            throw tooLarge(c, false);
          }
          c.attribute(OVERSIZED, Boolean.TRUE);
        }
      } catch (NumberFormatException e) {
        throw ServiceException.invalid("Content-Length", "is not a number");
      }
    }
  }

  /**
   * Reads the request's body, if it has one, for a caller that passed authentication ({@code owner}
   * is its workspace): the body an endpoint parses, or one it has no use for, read and ignored so
   * the connection stays usable. Bounded in time by the {@link BodyDeadline} and in threads by
   * {@link #BODIES_PER_WORKSPACE}.
   */
  void receive(Context c, String owner) {
    if (!hasBody(c) || c.attribute(BODY) != null) {
      return;
    }
    if (arrived(c)) {
      receiveNow(c);
    } else {
      arriving.run(
          owner,
          () -> {
            receiveNow(c);
            return null;
          });
    }
  }

  private static void receiveNow(Context c) {
    if (Boolean.TRUE.equals(c.attribute(OVERSIZED))) {
      throw tooLarge(c, true);
    }
    body(c);
  }

  /** Whether the request announced or is sending a body. */
  static boolean hasBody(Context c) {
    return c.req().getContentLengthLong() > 0 || c.header("Transfer-Encoding") != null;
  }

  /**
   * Whether the request has a body that nothing has read: its answer then closes the connection,
   * whose next bytes would be the rest of that body.
   */
  static boolean bodyUnread(Context c) {
    return hasBody(c) && c.attribute(BODY) == null && c.attribute(DRAINED) == null;
  }

  /** Whether the whole announced body is already in the server's buffer (nothing to wait for). */
  private static boolean arrived(Context c) {
    long length = c.req().getContentLengthLong();
    try {
      return length > 0 && c.req().getInputStream().available() >= length;
    } catch (IOException e) {
      return false;
    }
  }

  /** The body parsed strictly as {@code type}; an empty body is {@code {}} when allowed. */
  <T> RequestBody<T> parse(Context c, Class<T> type, boolean emptyAllowed) {
    return RequestBody.parse(strict, body(c), type, emptyAllowed);
  }

  /** The value of {@link #parse(Context, Class, boolean)} for a body that must not be empty. */
  <T> T value(Context c, Class<T> type) {
    return parse(c, type, false).value();
  }

  /**
   * The request body, read once and kept on the request: exactly Content-Length bytes when the
   * client sent one (already checked against the 1 MiB limit), else read up to the limit. Reading
   * it here rather than through Javalin avoids a growing copy buffer per request on the hot path. A
   * body that does not arrive in time ({@link BodyDeadline}) is 408 {@code request_timeout}.
   */
  static byte[] body(Context c) {
    byte[] cached = c.attribute(BODY);
    if (cached != null) {
      return cached;
    }
    byte[] bytes;
    try {
      InputStream in = c.req().getInputStream();
      long length = c.req().getContentLengthLong();
      if (length >= 0) {
        bytes = in.readNBytes((int) length);
        if (bytes.length < length) {
          c.header("Connection", "close");
          throw ServiceException.invalid("body", "ended before its Content-Length");
        }
      } else {
        bytes = in.readNBytes(MAX_BODY + 1);
        if (bytes.length > MAX_BODY) {
          throw tooLarge(c, true);
        }
      }
    } catch (IOException e) {
      c.header("Connection", "close");
      if (timedOut(e)) {
        throw ServiceException.of(ErrorCode.REQUEST_TIMEOUT, rootMessage(e));
      }
      throw ServiceException.invalid("body", "could not be read: " + e.getMessage());
    }
    c.attribute(BODY, bytes);
    return bytes;
  }

  private static boolean timedOut(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof TimeoutException) {
        return true;
      }
    }
    return false;
  }

  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null) {
      t = t.getCause();
    }
    return t.getMessage() != null ? t.getMessage() : "the request body did not arrive in time";
  }

  /**
   * The 413 for an oversized body. When {@code drain}, the rest of the body (at most {@link
   * #DRAIN_LIMIT} more) is read and thrown away first, within the body's time bounds, so the answer
   * reaches a client still sending; otherwise, or when the drain does not finish, the answer goes
   * out at once and closes the connection.
   */
  private static ServiceException tooLarge(Context c, boolean drain) {
    if (drain && drain(c)) {
      c.attribute(DRAINED, Boolean.TRUE);
    } else {
      c.header("Connection", "close");
    }
    return ServiceException.of(
        ErrorCode.PAYLOAD_TOO_LARGE, "the request body is larger than 1 MiB");
  }

  /**
   * Reads the body to its end and throws it away; false when it passes the drain limit or fails.
   */
  private static boolean drain(Context c) {
    try {
      InputStream in = c.req().getInputStream();
      byte[] sink = new byte[64 * 1024];
      long read = 0;
      int n;
      while ((n = in.read(sink)) != -1) {
        read += n;
        if (read > DRAIN_LIMIT) {
          return false;
        }
      }
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** The {@code limit} query parameter: 1 to 100, default 50. */
  static int limit(Context c) {
    String raw = c.queryParam("limit");
    if (raw == null) {
      return 50;
    }
    try {
      int n = Integer.parseInt(raw);
      if (n >= 1 && n <= 100) {
        return n;
      }
    } catch (NumberFormatException e) {
      // fall through
    }
    throw ServiceException.invalid(
        "limit", "must be an integer from 1 to 100, got \"" + raw + "\"");
  }

  /**
   * What a mutation by {@code caller} needs from its request: {@code wait}, the Idempotency-Key and
   * the request's hash.
   *
   * @param group the authorization a grouped operation locks, or null
   */
  static MutationRunner.Request mutation(Context c, Caller caller, Store.GroupKey group) {
    boolean wait = waitRequested(c);
    String key = c.header("Idempotency-Key");
    boolean keyValid = key != null && !key.isEmpty() && key.length() <= 255;
    // The request checks the key itself; the hash is only worth computing for a valid one.
    return new MutationRunner.Request(caller, key, keyValid ? requestHash(c) : null, group, wait);
  }

  private static boolean waitRequested(Context c) {
    String w = c.queryParam("wait");
    if (w == null || w.equals("false")) {
      return false;
    }
    if (w.equals("true")) {
      return true;
    }
    throw ServiceException.invalid("wait", "must be true or false");
  }

  private static String requestHash(Context c) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      md.update(c.method().name().getBytes(StandardCharsets.UTF_8));
      md.update((byte) 0);
      md.update(c.path().getBytes(StandardCharsets.UTF_8));
      md.update((byte) 0);
      String q = c.queryString();
      md.update((q == null ? "" : q).getBytes(StandardCharsets.UTF_8));
      md.update((byte) 0);
      md.update(body(c));
      return HexFormat.of().formatHex(md.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The client's X-Request-Id when it is well-formed, else a new one: not a secret, so no
   * SecureRandom.
   */
  static String requestId(String incoming) {
    if (incoming != null && REQUEST_ID.matcher(incoming).matches()) {
      return incoming;
    }
    ThreadLocalRandom r = ThreadLocalRandom.current();
    return "req_" + Long.toString(r.nextLong() & Long.MAX_VALUE, 36);
  }

  /**
   * Refuses a path id or query parameter holding U+0000: no stored value can contain one, and
   * PostgreSQL refuses it in a text parameter (which would be a 500).
   */
  static void refuseNulInParameters(Context c) {
    for (var e : c.pathParamMap().entrySet()) {
      if (e.getValue().indexOf('\u0000') >= 0) {
        throw ServiceException.invalid(e.getKey(), "must not contain U+0000");
      }
    }
    for (var e : c.queryParamMap().entrySet()) {
      for (String v : e.getValue()) {
        if (v.indexOf('\u0000') >= 0) {
          throw ServiceException.invalid(e.getKey(), "must not contain U+0000");
        }
      }
    }
  }
}
