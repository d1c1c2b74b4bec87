package dev.agentauth.verifier.cli;

import static dev.agentauth.verifier.cli.CliFixtures.IMPOSTOR;
import static dev.agentauth.verifier.cli.CliFixtures.SIGNER;
import static dev.agentauth.verifier.cli.CliFixtures.json;
import static dev.agentauth.verifier.cli.CliFixtures.run;
import static dev.agentauth.verifier.cli.CliFixtures.write;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.verifier.cli.CliFixtures.Run;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code --threads}: the report is byte for byte the one a single thread prints. */
class ParallelCliTest {

  private static final int RECEIPTS = 300;
  private static final int AUTHORIZATIONS = 7;

  @TempDir Path dir;

  private String keys;
  private String receipts;

  @BeforeEach
  void writeFiles() {
    keys = write(dir, "keys.json", CliFixtures.keysDocument()).toString();
    receipts = write(dir, "receipts.ndjson", mixedReceipts()).toString();
  }

  /**
   * {@value #RECEIPTS} receipts over {@value #AUTHORIZATIONS} authorizations: valid creates, allows
   * and denies, tampered ones, ones signed by an impostor key, some out of order, a line that is
   * not an object and receipts without an authorization id.
   */
  private static String mixedReceipts() {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < RECEIPTS; i++) {
      String auth = "auth_P" + (i % AUTHORIZATIONS);
      int minute = (i * 7) % 60;
      String time = String.format("%02d:%02d", 10 + (i / 150), minute);
      String id = String.format("01JP%04d", i);
      ObjectNode r;
      if (i < AUTHORIZATIONS) {
        r = CliFixtures.create("09:00");
        r.put("receipt_id", id);
      } else {
        r = CliFixtures.scope(id, time, i % 10 == 7 ? "deny" : "allow");
      }
      r.put("authorization_id", auth);
      switch (i % 10) {
        case 3 -> {
          r = SIGNER.sign(r);
          r.put("user_id", "user_tampered");
        }
        case 5 -> r = IMPOSTOR.sign(r);
        case 9 -> {
          r.putNull("authorization_id");
          r = SIGNER.sign(r);
        }
        default -> r = SIGNER.sign(r);
      }
      sb.append(json(r)).append('\n');
      if (i == 150) {
        sb.append("42\n");
      }
    }
    return sb.toString();
  }

  private Run verify(int threads, String... options) {
    List<String> args = new ArrayList<>(List.of("verify", "--keys", keys));
    args.addAll(List.of(options));
    args.add("--threads");
    args.add(Integer.toString(threads));
    args.add(receipts);
    return run(args.toArray(String[]::new));
  }

  @ParameterizedTest
  @CsvSource({"2", "3", "8"})
  void textOutputIsTheSameOnEveryThreadCount(int threads) {
    Run one = verify(1);

    Run many = verify(threads);

    assertThat(one.outLines()).hasSize(RECEIPTS + 2);
    assertThat(one.out()).contains("VALID   01JP0008", "INVALID 01JP0003", "INVALID (");
    assertThat(many.out()).isEqualTo(one.out());
    assertThat(many.err()).isEqualTo(one.err()).isEmpty();
    assertThat(many.exitCode()).isEqualTo(one.exitCode()).isEqualTo(1);
  }

  @ParameterizedTest
  @CsvSource({"2", "8"})
  void jsonOutputIsTheSameOnEveryThreadCount(int threads) {
    Run one = verify(1, "--json");

    Run many = verify(threads, "--json");

    assertThat(CliFixtures.parse(one.out()).get("receipts")).hasSize(RECEIPTS + 1);
    assertThat(many.out()).isEqualTo(one.out());
  }

  @ParameterizedTest
  @CsvSource({"2", "8"})
  void chainOutputIsTheSameOnEveryThreadCount(int threads) {
    Run one = verify(1, "--chain");
    Run oneJson = verify(1, "--chain", "--json");

    Run many = verify(threads, "--chain");
    Run manyJson = verify(threads, "--chain", "--json");

    assertThat(one.out()).contains("CHAIN   auth_P0  INVALID", "to no chain");
    assertThat(many.out()).isEqualTo(one.out());
    assertThat(manyJson.out()).isEqualTo(oneJson.out());
    assertThat(manyJson.exitCode()).isEqualTo(oneJson.exitCode()).isEqualTo(1);
  }

  @Test
  void aSingleValidChainVerifiesOnSeveralThreads() {
    List<ObjectNode> chain = new ArrayList<>();
    chain.add(CliFixtures.create("10:00"));
    for (int i = 0; i < 40; i++) {
      chain.add(CliFixtures.scope(String.format("01JS%04d", i), "10:" + (10 + i), "allow"));
    }
    String file = write(dir, "chain.ndjson", CliFixtures.ndjson(chain)).toString();

    Run run = run("verify", "--keys", keys, "--chain", "--threads", "4", file);

    assertThat(run.exitCode()).isZero();
    assertThat(run.outLines())
        .contains("CHAIN   " + CliFixtures.AUTHORIZATION + "  VALID (41 receipts)")
        .last()
        .isEqualTo("RESULT  VALID  41 receipts: 41 valid, 0 invalid; 1 chain: 1 valid, 0 invalid");
  }

  @Test
  void theFirstMalformedLineIsReportedWhateverTheThreads() {
    List<String> lines = new ArrayList<>(mixedReceipts().lines().toList());
    lines.set(199, "{\"version\": \"1.0\",");
    lines.set(40, "{not json");
    String file = write(dir, "broken.ndjson", String.join("\n", lines)).toString();

    Run one = run("verify", "--keys", keys, "--threads", "1", file);
    Run many = run("verify", "--keys", keys, "--threads", "4", file);

    assertThat(one.exitCode()).isEqualTo(2);
    assertThat(one.err()).contains(file + " line 41 is not valid JSON (NDJSON input)");
    assertThat(many.err()).isEqualTo(one.err());
    assertThat(many.exitCode()).isEqualTo(2);
    assertThat(many.out()).isEmpty();
  }

  @Test
  void threadsMustBePositive() {
    Run zero = verify(0);

    assertThat(zero.exitCode()).isEqualTo(2);
    assertThat(zero.out()).isEmpty();
    assertThat(zero.err())
        .isEqualTo(
            "agentauth-verify: --threads must be between 1 and 1024; got 0"
                + System.lineSeparator());
  }
}
