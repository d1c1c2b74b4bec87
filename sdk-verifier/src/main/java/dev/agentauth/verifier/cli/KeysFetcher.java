package dev.agentauth.verifier.cli;

import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Fetches a workspace's keys document, {@code GET BASE_URL/v1/workspaces/ID/keys} (public, no API
 * key), with the JDK's HTTP client.
 */
final class KeysFetcher {

  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

  /** A keys document is a few hundred bytes per key; anything this large is not one. */
  static final int MAX_BODY_BYTES = 1 << 20;

  private KeysFetcher() {}

  /** The keys document URL for {@code baseUrl} and {@code workspaceId}. */
  static URI keysUri(String baseUrl, String workspaceId) throws InputException {
    URI base;
    try {
      base = new URI(baseUrl.strip());
    } catch (URISyntaxException e) {
      throw new InputException("--keys-url " + baseUrl + " is not a valid URL: " + e.getReason());
    }
    String scheme = base.getScheme();
    if (scheme == null
        || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))
        || base.getHost() == null) {
      throw new InputException(
          "--keys-url must be an http:// or https:// base URL such as https://agentauth.example.com;"
              + " got "
              + baseUrl);
    }
    if (base.getRawQuery() != null || base.getRawFragment() != null) {
      throw new InputException(
          "--keys-url must be a base URL without query or fragment; got " + baseUrl);
    }
    if (workspaceId.isEmpty()) {
      throw new InputException("--workspace must not be empty");
    }
    String path = base.getRawPath() == null ? "" : base.getRawPath();
    while (path.endsWith("/")) {
      path = path.substring(0, path.length() - 1);
    }
    String url =
        scheme.toLowerCase(java.util.Locale.ROOT)
            + "://"
            + base.getRawAuthority()
            + path
            + "/v1/workspaces/"
            + encodeSegment(workspaceId)
            + "/keys";
    try {
      return new URI(url);
    } catch (URISyntaxException e) {
      throw new InputException("cannot build the keys URL from " + baseUrl + ": " + e.getReason());
    }
  }

  /**
   * Whether fetching from {@code uri} could be tampered with on the way (plain HTTP, not local).
   */
  static boolean insecure(URI uri) {
    if (!"http".equals(uri.getScheme())) {
      return false;
    }
    String host = uri.getHost();
    if (host.equalsIgnoreCase("localhost")) {
      return false;
    }
    boolean literal =
        host.startsWith("[") || host.chars().allMatch(c -> c == '.' || (c >= '0' && c <= '9'));
    if (!literal) {
      return true; // no DNS look-up just for a warning
    }
    try {
      return !InetAddress.getByName(host).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return true;
    }
  }

  /**
   * Fetches the document and returns its body.
   *
   * @throws InputException on a network error, a timeout, a status other than 200, or a body that
   *     is too large or not UTF-8
   */
  static String fetch(URI uri) throws InputException {
    HttpClient client =
        HttpClient.newBuilder()
            .connectTimeout(CONNECT_TIMEOUT)
            .followRedirects(HttpClient.Redirect.NORMAL)
            .build();
    HttpRequest request =
        HttpRequest.newBuilder(uri)
            .timeout(REQUEST_TIMEOUT)
            .header("Accept", "application/json")
            .header("User-Agent", "agentauth-verify")
            .GET()
            .build();
    HttpResponse<InputStream> response;
    try {
      response = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
    } catch (HttpConnectTimeoutException e) {
      throw new InputException(
          "cannot fetch keys from "
              + uri
              + ": connection timed out after "
              + CONNECT_TIMEOUT.toSeconds()
              + " s");
    } catch (HttpTimeoutException e) {
      throw new InputException(
          "cannot fetch keys from "
              + uri
              + ": no response within "
              + REQUEST_TIMEOUT.toSeconds()
              + " s");
    } catch (IOException e) {
      throw new InputException("cannot fetch keys from " + uri + ": " + describe(e, uri));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InputException("interrupted while fetching keys from " + uri);
    }
    byte[] body;
    try (InputStream in = response.body()) {
      if (response.statusCode() != 200) {
        throw new InputException(
            "GET "
                + uri
                + " returned HTTP "
                + response.statusCode()
                + " (expected 200): check --keys-url and --workspace");
      }
      body = in.readNBytes(MAX_BODY_BYTES + 1);
    } catch (IOException e) {
      throw new InputException(
          "cannot read the keys response from " + uri + ": " + describe(e, uri));
    }
    if (body.length > MAX_BODY_BYTES) {
      throw new InputException(
          "the keys response from " + uri + " is larger than " + MAX_BODY_BYTES + " bytes");
    }
    return ReceiptInputs.decode("the keys response from " + uri, body);
  }

  /** A one-line reason; the JDK's connect failures often carry no message of their own. */
  private static String describe(IOException e, URI uri) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof UnresolvedAddressException || t instanceof UnknownHostException) {
        return "unknown host " + uri.getHost();
      }
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
