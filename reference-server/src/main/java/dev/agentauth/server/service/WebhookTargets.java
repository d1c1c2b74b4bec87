package dev.agentauth.server.service;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Where webhooks may point: {@code https://} URLs whose host resolves only to public addresses.
 * Refused: loopback, private (RFC 1918), link-local (which holds the cloud metadata address
 * 169.254.169.254), carrier-grade NAT (100.64.0.0/10), "this network" (0.0.0.0/8), benchmarking,
 * documentation, multicast and reserved ranges, IPv6 unique-local (fc00::/7), link-local,
 * site-local and the IPv4 addresses IPv6 embeds (mapped, compatible, NAT64 and 6to4). With {@code
 * allowLoopback} (tests, local use) loopback is allowed, over {@code http://} too.
 *
 * <p>The rules run when a webhook is created and again before every delivery, on the addresses the
 * connection will use, since what a name resolves to may change. Thread-safe.
 */
public final class WebhookTargets {

  /** A refused target: the rule it broke, in words for a problem's field message or a log. */
  public record Refusal(String rule) {}

  /** Resolves a host name; tests substitute one. */
  @FunctionalInterface
  public interface Resolver {
    List<InetAddress> resolve(String host) throws UnknownHostException;
  }

  private final boolean allowLoopback;
  private final Resolver resolver;

  public WebhookTargets(boolean allowLoopback) {
    this(allowLoopback, host -> List.of(InetAddress.getAllByName(host)));
  }

  public WebhookTargets(boolean allowLoopback, Resolver resolver) {
    this.allowLoopback = allowLoopback;
    this.resolver = resolver;
  }

  public boolean allowsLoopback() {
    return allowLoopback;
  }

  /**
   * Checks {@code url}'s form (absolute {@code https://} URL with a host, no user info or
   * fragment), then resolves its host and checks every address.
   */
  public Optional<Refusal> check(String url) {
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      return refuse("must be an absolute https:// URL: " + e.getReason());
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    String host = uri.getHost();
    if (!uri.isAbsolute() || host == null || host.isEmpty()) {
      return refuse("must be an absolute https:// URL with a host");
    }
    if (uri.getRawUserInfo() != null) {
      return refuse("must not hold user info (user:password@)");
    }
    if (uri.getRawFragment() != null) {
      return refuse("must not hold a fragment (#...)");
    }
    if (!scheme.equals("https") && !scheme.equals("http")) {
      return refuse("must use https://, got " + scheme + "://");
    }
    List<InetAddress> addresses;
    try {
      addresses = resolve(host);
    } catch (UnknownHostException e) {
      return refuse("its host " + host + " does not resolve");
    }
    Optional<Refusal> refused = checkAddresses(host, addresses);
    if (refused.isPresent()) {
      return refused;
    }
    if (scheme.equals("http") && !(allowLoopback && allLoopback(addresses))) {
      return refuse(
          "must use https:// (plain http:// only to loopback with --webhooks-allow-loopback)");
    }
    return Optional.empty();
  }

  /** The addresses of {@code host} (an IP literal stands for itself). */
  public List<InetAddress> resolve(String host) throws UnknownHostException {
    String h =
        host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    List<InetAddress> out = resolver.resolve(h);
    if (out.isEmpty()) {
      throw new UnknownHostException(h);
    }
    return out;
  }

  /** The first rule one of {@code addresses} breaks, if any. */
  public Optional<Refusal> checkAddresses(String host, List<InetAddress> addresses) {
    for (InetAddress a : addresses) {
      Optional<String> why = whyNotPublic(a);
      if (why.isPresent()) {
        if (allowLoopback && a.isLoopbackAddress()) {
          continue;
        }
        String shown =
            host.equalsIgnoreCase(a.getHostAddress())
                ? host
                : host + " (" + a.getHostAddress() + ")";
        return refuse(
            "must resolve to public addresses only; "
                + shown
                + " is "
                + why.get()
                + (a.isLoopbackAddress() ? " (allowed only with --webhooks-allow-loopback)" : ""));
      }
    }
    return Optional.empty();
  }

  private static boolean allLoopback(List<InetAddress> addresses) {
    return addresses.stream().allMatch(InetAddress::isLoopbackAddress);
  }

  private static Optional<Refusal> refuse(String rule) {
    return Optional.of(new Refusal(rule));
  }

  /** Why {@code a} is not a public unicast address, or empty when it is one. */
  static Optional<String> whyNotPublic(InetAddress a) {
    byte[] b = a.getAddress();
    if (a instanceof Inet4Address) {
      return whyNotPublic4(b);
    }
    if (a instanceof Inet6Address) {
      return whyNotPublic6(b);
    }
    return Optional.of("not an IP address");
  }

  private static Optional<String> whyNotPublic4(byte[] b) {
    int o0 = b[0] & 0xff;
    int o1 = b[1] & 0xff;
    int o2 = b[2] & 0xff;
    if (o0 == 127) {
      return Optional.of("loopback (127.0.0.0/8)");
    }
    if (o0 == 10 || (o0 == 172 && (o1 & 0xf0) == 16) || (o0 == 192 && o1 == 168)) {
      return Optional.of("private (RFC 1918)");
    }
    if (o0 == 169 && o1 == 254) {
      return Optional.of("link-local (169.254.0.0/16, where cloud metadata services listen)");
    }
    if (o0 == 100 && (o1 & 0xc0) == 64) {
      return Optional.of("carrier-grade NAT (100.64.0.0/10)");
    }
    if (o0 == 0) {
      return Optional.of("\"this network\" (0.0.0.0/8)");
    }
    if (o0 == 192 && o1 == 0 && o2 == 0) {
      return Optional.of("IETF protocol assignments (192.0.0.0/24)");
    }
    if ((o0 == 192 && o1 == 0 && o2 == 2)
        || (o0 == 198 && o1 == 51 && o2 == 100)
        || (o0 == 203 && o1 == 0 && o2 == 113)) {
      return Optional.of("documentation (TEST-NET)");
    }
    if (o0 == 198 && (o1 & 0xfe) == 18) {
      return Optional.of("benchmarking (198.18.0.0/15)");
    }
    if (o0 == 192 && o1 == 88 && o2 == 99) {
      return Optional.of("6to4 relay anycast (192.88.99.0/24)");
    }
    if (o0 >= 224) {
      return Optional.of(o0 < 240 ? "multicast (224.0.0.0/4)" : "reserved (240.0.0.0/4)");
    }
    return Optional.empty();
  }

  private static Optional<String> whyNotPublic6(byte[] b) {
    boolean zeroFirst10 = true;
    for (int i = 0; i < 10; i++) {
      zeroFirst10 &= b[i] == 0;
    }
    if (zeroFirst10 && b[10] == 0 && b[11] == 0) {
      boolean zeroRest = true;
      for (int i = 12; i < 15; i++) {
        zeroRest &= b[i] == 0;
      }
      if (zeroRest && b[15] == 1) {
        return Optional.of("loopback (::1)");
      }
      if (zeroRest && b[15] == 0) {
        return Optional.of("unspecified (::)");
      }
      return embedded(b, 12, "IPv4-compatible IPv6");
    }
    if (zeroFirst10 && (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff) {
      return embedded(b, 12, "IPv4-mapped IPv6");
    }
    int b0 = b[0] & 0xff;
    int b1 = b[1] & 0xff;
    if ((b0 & 0xfe) == 0xfc) {
      return Optional.of("unique-local (fc00::/7)");
    }
    if (b0 == 0xfe && (b1 & 0xc0) == 0x80) {
      return Optional.of("link-local (fe80::/10)");
    }
    if (b0 == 0xfe && (b1 & 0xc0) == 0xc0) {
      return Optional.of("site-local (fec0::/10)");
    }
    if (b0 == 0xff) {
      return Optional.of("multicast (ff00::/8)");
    }
    if (b0 == 0x20 && b1 == 0x01 && b[2] == 0x0d && (b[3] & 0xff) == 0xb8) {
      return Optional.of("documentation (2001:db8::/32)");
    }
    if (b0 == 0x20 && b1 == 0x02) {
      return embedded(b, 2, "6to4");
    }
    if (b0 == 0x00 && b1 == 0x64 && (b[2] & 0xff) == 0xff && (b[3] & 0xff) == 0x9b) {
      return embedded(b, 12, "NAT64");
    }
    if ((b0 & 0xe0) != 0x20) {
      return Optional.of("outside global unicast (2000::/3)");
    }
    return Optional.empty();
  }

  /** The verdict on the IPv4 address at {@code offset}, as embedded in an IPv6 one. */
  private static Optional<String> embedded(byte[] b, int offset, String kind) {
    byte[] v4 = {b[offset], b[offset + 1], b[offset + 2], b[offset + 3]};
    return whyNotPublic4(v4).map(why -> kind + " of an address that is " + why);
  }
}
