package dev.agentauth.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** UserIds.keyedHash: HMAC-SHA256 of the normalized e-mail, base64url without padding. */
class UserIdsTest {
  private static final byte[] SECRET =
      "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.UTF_8);

  @Test
  void matchesAnIndependentlyComputedHmac() {
    // printf 'ada@example.com' | openssl dgst -sha256 -hmac 0123456789abcdef0123456789abcdef
    // -binary
    //   | basenc --base64url | tr -d '='
    assertThat(UserIds.keyedHash(SECRET, "ada@example.com")).isEqualTo(EXPECTED);
  }

  @Test
  void normalizesCaseAndSurroundingWhitespace() {
    assertThat(UserIds.keyedHash(SECRET, "  Ada@Example.COM\n")).isEqualTo(EXPECTED);
    assertThat(UserIds.keyedHash(new String(SECRET, StandardCharsets.UTF_8), "ada@example.com"))
        .isEqualTo(EXPECTED);
  }

  @Test
  void differentSecretsGiveUnlinkableIds() {
    byte[] other = "fedcba9876543210fedcba9876543210".getBytes(StandardCharsets.UTF_8);
    assertThat(UserIds.keyedHash(other, "ada@example.com")).isNotEqualTo(EXPECTED);
  }

  @Test
  void outputIsAnOpaqueBase64UrlIdTheServiceAccepts() {
    String id = UserIds.keyedHash(SECRET, "ada@example.com");
    assertThat(id).hasSize(43).matches("[A-Za-z0-9_-]+");
    assertThat(
            AuthorizationCreateParams.inline()
                .userId(id)
                .agentId("bot")
                .scope("s")
                .expiresAt(java.time.Instant.parse("2026-12-01T00:00:00Z"))
                .build()
                .body()
                .userId())
        .isEqualTo(id);
  }

  @Test
  void rejectsShortSecretsAndBlankEmails() {
    assertThatThrownBy(() -> UserIds.keyedHash(new byte[15], "a@b.c"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("expected a secret of at least 16 bytes, found 15 bytes");
    assertThatThrownBy(() -> UserIds.keyedHash(SECRET, "   "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("expected an e-mail address, found a blank string");
  }

  private static final String EXPECTED = "4-MLTVAiSkuhQIRgcIXQckAhRCEqEi60UB2t3Wu-DuM";
}
