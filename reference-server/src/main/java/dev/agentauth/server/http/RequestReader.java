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
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;
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
   * How much of an oversized body is still read and thrown away before the 413 is sent. A server
   * that answers and closes while the client is still sending makes the client's TCP stack see a
   * reset, and most clients then report a dropped connection instead of the 413. Bodies up to this
   * size are drained so the answer arrives; larger ones are answered at once with {@code
   * Connection: close}.
   */
  static final long DRAIN_LIMIT = 8L * MAX_BODY;

  private static final Pattern REQUEST_ID = Pattern.compile("[A-Za-z0-9._:-]{1,128}");
  private static final String BODY = "agentauth.body";
  static final String REQUEST_ID_ATTRIBUTE = "request_id";

  private final ObjectMapper strict = AgentAuthJson.newStrictObjectMapper();

  /**
   * Starts a request: keeps the client's X-Request-Id when it is well-formed (else makes one) and
   * echoes it, and refuses an announced body over the limit before reading it.
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
          throw tooLarge(c, announced);
        }
      } catch (NumberFormatException e) {
        throw ServiceException.invalid("Content-Length", "is not a number");
      }
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
   * it here rather than through Javalin avoids a growing copy buffer per request on the hot path.
   */
  static byte[] body(Context c) {
    byte[] cached = c.attribute(BODY);
    if (cached != null) {
      return cached;
    }
    byte[] bytes;
    try (InputStream in = c.req().getInputStream()) {
      long length = c.req().getContentLengthLong();
      if (length >= 0) {
        bytes = in.readNBytes((int) length);
      } else {
        bytes = in.readNBytes(MAX_BODY + 1);
        if (bytes.length > MAX_BODY) {
          throw tooLarge(c, -1);
        }
      }
    } catch (IOException e) {
      throw ServiceException.invalid("body", "could not be read: " + e.getMessage());
    }
    c.attribute(BODY, bytes);
    return bytes;
  }

  /**
   * The 413 for an oversized body. A client still sending when the server answers and closes sees a
   * TCP reset, and most report a dropped connection instead of the answer, so a body of at most
   * {@link #DRAIN_LIMIT} bytes is read and thrown away first. A larger one, or one the client holds
   * back until told to go on ({@code Expect: 100-continue}), is not read: the answer goes out at
   * once and the connection closes after it.
   *
   * @param announced the {@code Content-Length}, or -1 for a chunked body
   */
  private static ServiceException tooLarge(Context c, long announced) {
    boolean drained = false;
    boolean waiting = announced >= 0 && "100-continue".equalsIgnoreCase(c.header("Expect"));
    if (!waiting && announced <= DRAIN_LIMIT) {
      try {
        InputStream in = c.req().getInputStream();
        byte[] sink = new byte[64 * 1024];
        long read = 0;
        int n;
        while (read <= DRAIN_LIMIT && (n = in.read(sink)) != -1) {
          read += n;
        }
        drained = read <= DRAIN_LIMIT;
      } catch (IOException e) {
        // the client stopped sending; the answer is still attempted
      }
    }
    if (!drained) {
      c.header("Connection", "close");
    }
    return ServiceException.of(
        ErrorCode.PAYLOAD_TOO_LARGE, "the request body is larger than 1 MiB");
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
