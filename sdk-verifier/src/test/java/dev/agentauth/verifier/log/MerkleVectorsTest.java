package dev.agentauth.verifier.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The transparency-dev/merkle test vectors (see {@code vectors/merkle/README.md}): every valid
 * proof verifies and every mutated one is refused.
 */
class MerkleVectorsTest {

  /** Accepted by transparency-dev, refused by us: its roots are 12-byte placeholders. */
  private static final String STRICTER = "sizes-are-equal-one-and-proof-is-empty.json";

  private static JsonNode vectors() throws IOException {
    try (InputStream in =
        MerkleVectorsTest.class.getResourceAsStream(
            "/vectors/merkle/transparency-dev-merkle.json")) {
      return new ObjectMapper().readTree(in);
    }
  }

  private static byte[] b64(JsonNode n) {
    return n == null || n.isNull() ? new byte[0] : Base64.getDecoder().decode(n.textValue());
  }

  private static List<byte[]> proof(JsonNode n) {
    List<byte[]> out = new ArrayList<>();
    if (n != null && !n.isNull()) {
      n.forEach(h -> out.add(b64(h)));
    }
    return out;
  }

  @Test
  void inclusionVectors() throws IOException {
    JsonNode all = vectors().get("inclusion");
    assertThat(all.size()).isGreaterThan(90);
    int valid = 0;
    for (JsonNode v : all) {
      Runnable check =
          () ->
              MerkleProofs.verifyInclusion(
                  v.get("leafIdx").asLong(),
                  v.get("treeSize").asLong(),
                  b64(v.get("leafHash")),
                  proof(v.get("proof")),
                  b64(v.get("root")));
      if (v.get("wantErr").asBoolean()) {
        assertThatThrownBy(check::run)
            .as(v.get("file").asText())
            .isInstanceOf(LogVerificationException.class);
      } else {
        assertThatCode(check::run).as(v.get("file").asText()).doesNotThrowAnyException();
        valid++;
      }
    }
    assertThat(valid).isGreaterThanOrEqualTo(5);
  }

  @Test
  void consistencyVectors() throws IOException {
    JsonNode all = vectors().get("consistency");
    assertThat(all.size()).isGreaterThan(90);
    int valid = 0;
    for (JsonNode v : all) {
      Runnable check =
          () ->
              MerkleProofs.verifyConsistency(
                  v.get("size1").asLong(),
                  v.get("size2").asLong(),
                  b64(v.get("root1")),
                  b64(v.get("root2")),
                  proof(v.get("proof")));
      String file = v.get("file").asText();
      if (v.get("wantErr").asBoolean() || file.endsWith(STRICTER)) {
        assertThatThrownBy(check::run).as(file).isInstanceOf(LogVerificationException.class);
      } else {
        assertThatCode(check::run).as(file).doesNotThrowAnyException();
        valid++;
      }
    }
    assertThat(valid).isGreaterThanOrEqualTo(5);
  }
}
