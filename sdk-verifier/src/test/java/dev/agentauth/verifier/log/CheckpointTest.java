package dev.agentauth.verifier.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Checkpoint bodies: exactly three lines, parsed strictly. */
class CheckpointTest {

  static final byte[] ROOT = NaiveMerkle.sha256(new byte[] {1});

  @Test
  void bodyRoundTrips() {
    Checkpoint c = new Checkpoint(Checkpoint.origin("log.example:8443", "ws_1"), 42, ROOT);
    assertThat(c.body()).isEqualTo("log.example:8443/agentauth/ws_1\n42\n" + c.rootBase64() + "\n");
    assertThat(Checkpoint.parseBody(c.body())).isEqualTo(c);
    assertThat(Checkpoint.parseBody("o/agentauth/w\n0\n" + c.rootBase64() + "\n").treeSize())
        .isZero();
  }

  /**
   * golang.org/x/mod sumdb/tlog note_test.go (TestFormatTree, commit fe2ec04f): the tree of size
   * 123456789012 whose hash is RecordHash("hello world"), the RFC 6962 leaf hash, formats its size
   * and hash lines as ours do. (Its first line, "go.sum database tree", holds spaces, which our
   * origins, being key names, may not.)
   */
  @Test
  void sizeAndHashLinesMatchTheGoSumdbExample() {
    byte[] hash = LogHash.leaf("hello world".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    Checkpoint c = new Checkpoint("go.sum/database/tree", 123456789012L, hash);
    assertThat(c.body())
        .isEqualTo(
            "go.sum/database/tree\n123456789012\nTszzRgjTG6xce+z2AG31kAXYKBgQVtCSCE40HmuwBb0=\n");
    assertThat(Checkpoint.parseBody(c.body())).isEqualTo(c);
    assertThatThrownBy(
            () ->
                Checkpoint.parseBody(
                    "go.sum database tree\n123456789012\n" + c.rootBase64() + "\n"))
        .hasMessageContaining("spaces");
  }

  @Test
  void malformedBodiesAreRefused() {
    String root = new Checkpoint("o", 1, ROOT).rootBase64();
    assertRefused("o\n1\n" + root, "newline");
    assertRefused("o\n1\n" + root + "\nextension\n", "exactly 3 lines");
    assertRefused("o\n1\n", "exactly 3 lines");
    assertRefused("o\n01\n" + root + "\n", "leading zeros");
    assertRefused("o\n+1\n" + root + "\n", "decimal");
    assertRefused("o\n-1\n" + root + "\n", "decimal");
    assertRefused("o\n9223372036854775808\n" + root + "\n", "too large");
    assertRefused("o\n1\n" + root.replace("=", "") + "\n", "base64");
    assertRefused("o\n1\nAAAA\n", "32 bytes");
    assertRefused("o o\n1\n" + root + "\n", "spaces");
    assertRefused("\n1\n" + root + "\n", "empty");
  }

  private static void assertRefused(String body, String message) {
    assertThatThrownBy(() -> Checkpoint.parseBody(body))
        .isInstanceOf(LogVerificationException.class)
        .hasMessageContaining(message);
  }
}
