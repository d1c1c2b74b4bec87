package dev.agentauth.server.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The webhook target rules: which addresses count as public, and what a URL must look like. Names
 * resolve through a fixed table here, so nothing leaves the machine.
 */
class WebhookTargetsTest {
  private static final Map<String, List<String>> DNS =
      Map.of(
          "hooks.example.com", List.of("93.184.216.34"),
          "rebound.example.com", List.of("93.184.216.34", "10.1.2.3"),
          "metadata.example.com", List.of("169.254.169.254"),
          "localhost", List.of("127.0.0.1", "::1"));

  private static WebhookTargets targets(boolean allowLoopback) {
    return new WebhookTargets(
        allowLoopback,
        host -> {
          List<String> ips = DNS.get(host);
          if (ips == null) {
            if (!host.matches("[0-9.]+") && !host.contains(":")) {
              throw new UnknownHostException(host);
            }
            return List.of(InetAddress.getByName(host)); // a literal: no lookup
          }
          List<InetAddress> out = new java.util.ArrayList<>();
          for (String ip : ips) {
            out.add(InetAddress.getByName(ip));
          }
          return out;
        });
  }

  private static String refusal(String url) {
    return targets(false).check(url).map(WebhookTargets.Refusal::rule).orElse(null);
  }

  @Test
  void publicHttpsTargetsAreAllowed() {
    assertThat(refusal("https://hooks.example.com/agentauth")).isNull();
    assertThat(refusal("https://93.184.216.34:8443/x?y=1")).isNull();
    assertThat(refusal("https://[2606:4700::1111]/x")).isNull();
  }

  @Test
  void everyNonPublicRangeIsRefusedNamingIt() throws UnknownHostException {
    Map<String, String> cases =
        Map.ofEntries(
            Map.entry("127.0.0.1", "loopback"),
            Map.entry("127.255.0.9", "loopback"),
            Map.entry("10.0.0.1", "private"),
            Map.entry("172.16.0.1", "private"),
            Map.entry("172.31.255.255", "private"),
            Map.entry("192.168.1.1", "private"),
            Map.entry("169.254.169.254", "link-local"),
            Map.entry("100.64.0.1", "carrier-grade NAT"),
            Map.entry("100.127.255.255", "carrier-grade NAT"),
            Map.entry("0.0.0.0", "this network"),
            Map.entry("192.0.2.1", "documentation"),
            Map.entry("198.18.0.1", "benchmarking"),
            Map.entry("224.0.0.1", "multicast"),
            Map.entry("255.255.255.255", "reserved"),
            Map.entry("::1", "loopback"),
            Map.entry("::", "unspecified"),
            Map.entry("fd00::1", "unique-local"),
            Map.entry("fc00::1", "unique-local"),
            Map.entry("fe80::1", "link-local"),
            Map.entry("ff02::1", "multicast"),
            Map.entry("2001:db8::1", "documentation"),
            Map.entry("64:ff9b::a00:1", "NAT64 of an address that is private"),
            Map.entry("2002:a9fe:a9fe::1", "6to4 of an address that is link-local"),
            Map.entry("::a00:1", "IPv4-compatible IPv6 of an address that is private"));
    for (Map.Entry<String, String> c : cases.entrySet()) {
      assertThat(WebhookTargets.whyNotPublic(InetAddress.getByName(c.getKey())))
          .as(c.getKey())
          .hasValueSatisfying(why -> assertThat(why).contains(c.getValue()));
    }
    for (String publicIp : List.of("8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700::1111")) {
      assertThat(WebhookTargets.whyNotPublic(InetAddress.getByName(publicIp)))
          .as(publicIp)
          .isEmpty();
    }
  }

  @Test
  void aNameIsRefusedWhenAnyOfItsAddressesIsNotPublic() {
    assertThat(refusal("https://rebound.example.com/x"))
        .contains("rebound.example.com (10.1.2.3)")
        .contains("private");
    assertThat(refusal("https://metadata.example.com/latest")).contains("link-local");
    assertThat(refusal("https://localhost/x"))
        .contains("loopback")
        .contains("--webhooks-allow-loopback");
    assertThat(refusal("https://[::ffff:169.254.169.254]/x")).contains("link-local");
  }

  @Test
  void theUrlMustBeAnAbsoluteHttpsUrlWithoutUserInfo() {
    assertThat(refusal("http://hooks.example.com/x")).contains("https://");
    assertThat(refusal("ftp://hooks.example.com/x")).contains("https://");
    assertThat(refusal("/relative")).contains("absolute");
    assertThat(refusal("https://user:pw@hooks.example.com/x")).contains("user info");
    assertThat(refusal("https://hooks.example.com/x#frag")).contains("fragment");
    assertThat(refusal("https://no-such-host.invalid/x")).isNotNull();
  }

  @Test
  void loopbackIsAllowedOnlyWithTheFlagAndPlainHttpOnlyThere() {
    WebhookTargets local = targets(true);
    assertThat(local.check("http://127.0.0.1:8080/hook")).isEmpty();
    assertThat(local.check("https://localhost/hook")).isEmpty();
    assertThat(local.check("http://hooks.example.com/x")).isPresent();
    assertThat(local.check("https://10.0.0.1/x")).isPresent();
    assertThat(local.check("https://169.254.169.254/x")).isPresent();
  }
}
