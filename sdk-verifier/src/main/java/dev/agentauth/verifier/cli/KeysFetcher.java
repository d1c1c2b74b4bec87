package dev.agentauth.verifier.cli;

import java.net.ConnectException;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.ResponseInfo;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.UnresolvedAddressException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Fetches a workspace's keys document, {@code GET BASE_URL/v1/workspaces/ID/keys} (public, no API
 * key), with the JDK's HTTP client, under the rules an auditor relies on:
 *
 * <ul>
 *   <li>{@code https://} only, except to a loopback host ({@code localhost}, {@code 127.0.0.0/8},
 *       {@code ::1}), which may use {@code http://}; plain HTTP to any other host is refused before
 *       any connection is made;
 *   <li>no redirect is followed: a 3xx answer is an error naming its status and {@code Location};
 *   <li>only status 200 is accepted;
 *   <li>at most {@link #MAX_BODY_BYTES}: a larger {@code Content-Length} is refused before the body
 *       is read, and a body without one (chunked) is cut off as soon as it passes the limit;
 *   <li>a connect timeout ({@link #CONNECT_TIMEOUT}) and a deadline for the whole exchange, body
 *       included ({@link #REQUEST_TIMEOUT}).
 * </ul>
 *
 * <p>Every failure is an {@link InputException} with a one-line message.
 */
final class KeysFetcher {

  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

  /** A keys document is a few hundred bytes per key; anything this large is not one. */
  static final int MAX_BODY_BYTES = 1 << 20;

  /** A redirect's {@code Location} is shown up to this many characters. */
  private static final int MAX_SHOWN_LOCATION = 200;

  private final Duration connectTimeout;
  private final Duration requestTimeout;
  private final int maxBodyBytes;

  /** One client for every request of a run (log checks send one per receipt); made on first use. */
  private HttpClient client;

  private synchronized HttpClient client() {
    if (client == null) {
      client =
          HttpClient.newBuilder()
              .connectTimeout(connectTimeout)
              .followRedirects(HttpClient.Redirect.NEVER)
              .build();
    }
    return client;
  }

  /** A fetcher with the default limits. */
  KeysFetcher() {
    this(CONNECT_TIMEOUT, REQUEST_TIMEOUT, MAX_BODY_BYTES);
  }

  /** A fetcher with other limits (tests). */
  KeysFetcher(Duration connectTimeout, Duration requestTimeout, int maxBodyBytes) {
    this.connectTimeout = connectTimeout;
    this.requestTimeout = requestTimeout;
    this.maxBodyBytes = maxBodyBytes;
  }

  /**
   * The keys document URL for {@code baseUrl} and {@code workspaceId}.
   *
   * @throws InputException if the base URL is not an absolute http(s) URL without query or
   *     fragment, if it is plain http to a host that is not loopback, or if the workspace is empty
   */
  static URI keysUri(String baseUrl, String workspaceId) throws InputException {
    if (workspaceId.isEmpty()) {
      endpoint(baseUrl, "--keys-url", "");
      throw new InputException("--workspace must not be empty");
    }
    return endpoint(
        baseUrl, "--keys-url", "/v1/workspaces/" + encodeSegment(workspaceId) + "/keys");
  }

  /**
   * The URL of {@code pathAndQuery} (already encoded, starting with {@code /}) under {@code
   * baseUrl}, given as option {@code option}.
   *
   * @throws InputException if the base URL is not an absolute http(s) URL without query or
   *     fragment, or if it is plain http to a host that is not loopback
   */
  static URI endpoint(String baseUrl, String option, String pathAndQuery) throws InputException {
    URI base;
    try {
      base = new URI(baseUrl.strip());
    } catch (URISyntaxException e) {
      throw new InputException(option + " " + baseUrl + " is not a valid URL: " + e.getReason());
    }
    String scheme = base.getScheme();
    if (scheme == null
        || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))
        || base.getHost() == null) {
      throw new InputException(
          option
              + " must be an https:// base URL such as https://agentauth.example.com;"
              + " got "
              + baseUrl);
    }
    if (base.getRawQuery() != null || base.getRawFragment() != null) {
      throw new InputException(
          option + " must be a base URL without query or fragment; got " + baseUrl);
    }
    if (scheme.equalsIgnoreCase("http") && !isLoopback(base.getHost())) {
      throw new InputException(
          option
              + " "
              + baseUrl
              + " uses plain http to a host that is not loopback: refused, since anyone on the"
              + " network path could substitute "
              + ("--keys-url".equals(option)
                  ? "the keys; use https://, or save the document and pass --keys"
                  : "what it serves; use https://")
              + " (http is allowed only to localhost, 127.0.0.0/8 and ::1)");
    }
    String path = base.getRawPath() == null ? "" : base.getRawPath();
    while (path.endsWith("/")) {
      path = path.substring(0, path.length() - 1);
    }
    String url =
        scheme.toLowerCase(Locale.ROOT) + "://" + base.getRawAuthority() + path + pathAndQuery;
    try {
      return new URI(url);
    } catch (URISyntaxException e) {
      throw new InputException(
          "cannot build a URL from " + option + " " + baseUrl + ": " + e.getReason());
    }
  }

  /**
   * Whether {@code host} (as {@link URI#getHost()} returns it) names the loopback interface without
   * a DNS look-up: {@code localhost}, a dotted-quad IPv4 literal in {@code 127.0.0.0/8}, or the
   * IPv6 literal {@code [::1]} in any spelling.
   */
  static boolean isLoopback(String host) {
    if (host.equalsIgnoreCase("localhost")) {
      return true;
    }
    if (host.startsWith("[") && host.endsWith("]")) {
      String literal = host.substring(1, host.length() - 1);
      if (literal.isEmpty() || !literal.chars().allMatch(c -> c == ':' || isHexDigit(c))) {
        return false; // zone ids and embedded IPv4 forms: not worth the risk
      }
      try {
        // An IPv6 literal: parsed, never looked up.
        return InetAddress.getByName(literal).isLoopbackAddress();
      } catch (UnknownHostException e) {
        return false;
      }
    }
    String[] octets = host.split("\\.", -1);
    if (octets.length != 4) {
      return false;
    }
    for (String octet : octets) {
      if (octet.isEmpty()
          || octet.length() > 3
          || !octet.chars().allMatch(c -> c >= '0' && c <= '9')
          || Integer.parseInt(octet) > 255) {
        return false;
      }
    }
    return octets[0].equals("127");
  }

  private static boolean isHexDigit(int c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  }

  /**
   * Fetches the document and returns its body as text.
   *
   * @throws InputException on a network error, a timeout, a redirect, a status other than 200, or a
   *     body that is too large or not UTF-8
   */
  String fetch(URI uri) throws InputException {
    HttpRequest request =
        HttpRequest.newBuilder(uri)
            .timeout(requestTimeout)
            .header("Accept", "application/json")
            .header("User-Agent", "agentauth-verify")
            .GET()
            .build();
    Response response = send(request, "keys", "give the keys' final base URL as --keys-url");
    if (response.status() != 200) {
      throw new InputException(
          "GET "
              + uri
              + " returned HTTP "
              + response.status()
              + " (expected 200): check --keys-url and --workspace");
    }
    return response.body();
  }

  /**
   * An answer: its status and its body (empty when a non-200 body was too large to read).
   *
   * @param status the HTTP status, never a 3xx
   * @param body the body as text
   */
  record Response(int status, String body) {}

  /**
   * A request builder with this fetcher's timeout and {@code User-Agent}, for {@link #send}.
   *
   * @param uri where to send it
   */
  HttpRequest.Builder request(URI uri) {
    return HttpRequest.newBuilder(uri)
        .timeout(requestTimeout)
        .header("User-Agent", "agentauth-verify");
  }

  /**
   * Sends a request under this class's rules (no redirect, body size limit, timeouts) and returns
   * the answer whatever its status but a redirect.
   *
   * @param what what is fetched, for messages ({@code keys}, {@code the checkpoint})
   * @param redirectHint what to do about a redirect, for its message
   * @throws InputException on a network error, a timeout, a redirect, or a 200 body that is too
   *     large or not UTF-8
   */
  Response send(HttpRequest request, String what, String redirectHint) throws InputException {
    URI uri = request.uri();
    CompletableFuture<HttpResponse<Body>> future =
        client().sendAsync(request, info -> new LimitedBody(info, maxBodyBytes));
    HttpResponse<Body> response;
    try {
      // The request timeout covers the wait for the headers; this deadline covers the body too.
      response = future.get(requestTimeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      future.cancel(true);
      throw new InputException(
          "cannot fetch "
              + what
              + " from "
              + uri
              + ": no complete response within "
              + show(requestTimeout));
    } catch (InterruptedException e) {
      future.cancel(true);
      Thread.currentThread().interrupt();
      throw new InputException("interrupted while fetching " + what + " from " + uri);
    } catch (ExecutionException e) {
      throw new InputException(
          "cannot fetch " + what + " from " + uri + ": " + describe(e.getCause(), uri));
    }
    int status = response.statusCode();
    if (status >= 300 && status < 400) {
      String location = response.headers().firstValue("Location").orElse("(no Location header)");
      if (location.length() > MAX_SHOWN_LOCATION) {
        location = location.substring(0, MAX_SHOWN_LOCATION) + "...";
      }
      throw new InputException(
          request.method()
              + " "
              + uri
              + " returned HTTP "
              + status
              + " redirecting to "
              + location
              + ": redirects are not followed; "
              + redirectHint);
    }
    Body body = response.body();
    if (status != 200) {
      byte[] bytes = body.bytes == null ? new byte[0] : body.bytes;
      return new Response(status, new String(bytes, StandardCharsets.UTF_8));
    }
    if (body.declaredLength > maxBodyBytes) {
      throw new InputException(
          "the "
              + what
              + " response from "
              + uri
              + " declares Content-Length "
              + body.declaredLength
              + ", more than the "
              + maxBodyBytes
              + "-byte limit; refused without reading it");
    }
    if (body.bytes == null) {
      throw new InputException(
          "the "
              + what
              + " response from "
              + uri
              + " is larger than the "
              + maxBodyBytes
              + "-byte limit; stopped reading it");
    }
    return new Response(
        status, ReceiptInputs.decode("the " + what + " response from " + uri, body.bytes));
  }

  /** A response body: the bytes, or {@code null} when it was refused or cut off for its size. */
  private record Body(byte[] bytes, long declaredLength) {}

  /**
   * Collects a body up to a limit. A declared length over the limit is refused before anything is
   * read; an undeclared one is cut off (subscription cancelled) as soon as it passes the limit.
   */
  private static final class LimitedBody implements BodySubscriber<Body> {
    private final CompletableFuture<Body> result = new CompletableFuture<>();
    private final int limit;
    private final long declaredLength;
    private final boolean discard;
    private Flow.Subscription subscription;
    private byte[] buffer = new byte[0];
    private int size;

    LimitedBody(ResponseInfo info, int limit) {
      this.limit = limit;
      OptionalLong length = info.headers().firstValueAsLong("Content-Length");
      this.declaredLength = length.isPresent() ? length.getAsLong() : -1;
      // A non-200 body is kept too (bounded) for its problem detail.
      this.discard = declaredLength > limit;
    }

    @Override
    public CompletionStage<Body> getBody() {
      return result;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
      subscription = s;
      if (discard) {
        s.cancel();
        result.complete(new Body(null, declaredLength));
        return;
      }
      s.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(List<ByteBuffer> items) {
      if (result.isDone()) {
        return;
      }
      for (ByteBuffer item : items) {
        int n = item.remaining();
        if ((long) size + n > limit) {
          subscription.cancel();
          result.complete(new Body(null, declaredLength));
          return;
        }
        if (size + n > buffer.length) {
          buffer = Arrays.copyOf(buffer, Math.min(limit, Math.max(size + n, 2 * buffer.length)));
        }
        item.get(buffer, size, n);
        size += n;
      }
    }

    @Override
    public void onError(Throwable t) {
      result.completeExceptionally(t);
    }

    @Override
    public void onComplete() {
      result.complete(new Body(Arrays.copyOf(buffer, size), declaredLength));
    }
  }

  /** A one-line reason; the JDK's connect failures often carry no message of their own. */
  String describe(Throwable e, URI uri) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof UnresolvedAddressException || t instanceof UnknownHostException) {
        return "unknown host " + uri.getHost() + " (DNS look-up failed)";
      }
    }
    if (e instanceof HttpConnectTimeoutException) {
      return "connection timed out after " + show(connectTimeout);
    }
    if (e instanceof HttpTimeoutException) {
      // The request's own timeout and the deadline above are the same duration: one message.
      return "no complete response within " + show(requestTimeout);
    }
    if (e instanceof ConnectException) {
      return "cannot connect to "
          + uri.getHost()
          + (uri.getPort() >= 0 ? ":" + uri.getPort() : "")
          + " (connection refused or host unreachable)";
    }
    String message = e.getMessage();
    String kind = e.getClass().getSimpleName();
    return message == null || message.isBlank() ? kind : kind + ": " + message;
  }

  /** {@code 30 s}, or {@code 250 ms} below a second. */
  static String show(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
  }

  /** Percent-encodes one path segment (RFC 3986 unreserved characters are kept). */
  static String encodeSegment(String segment) {
    StringBuilder sb = new StringBuilder();
    for (byte b : segment.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xFF;
      if ((c >= 'A' && c <= 'Z')
          || (c >= 'a' && c <= 'z')
          || (c >= '0' && c <= '9')
          || c == '-'
          || c == '.'
          || c == '_'
          || c == '~') {
        sb.append((char) c);
      } else {
        sb.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)));
        sb.append(Character.toUpperCase(Character.forDigit(c & 0xF, 16)));
      }
    }
    return sb.toString();
  }
}
