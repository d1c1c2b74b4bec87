package dev.agentauth.verifier.cli;

import static dev.agentauth.verifier.cli.CliFixtures.create;
import static dev.agentauth.verifier.cli.CliFixtures.ndjson;
import static dev.agentauth.verifier.cli.CliFixtures.revoke;
import static dev.agentauth.verifier.cli.CliFixtures.run;
import static dev.agentauth.verifier.cli.CliFixtures.scope;
import static dev.agentauth.verifier.cli.CliFixtures.write;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.verifier.cli.CliFixtures.Run;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChainCliTest {

  private static final String AUTH = CliFixtures.AUTHORIZATION;

  @TempDir Path dir;

  private String keys;

  @BeforeEach
  void writeKeys() {
    keys = write(dir, "keys.json", CliFixtures.keysDocument()).toString();
  }

  /** create 10:00, allow 10:15, deny 10:30, revoke 11:00, deny 11:15: a valid chain. */
  private static List<ObjectNode> validChain() {
    return new ArrayList<>(
        List.of(
            create("10:00"),
            scope("01JCLISCOPE1", "10:15", "allow"),
            scope("01JCLISCOPE2", "10:30", "deny"),
            revoke("11:00"),
            scope("01JCLISCOPE3", "11:15", "deny")));
  }

  private Run verifyChain(List<ObjectNode> receipts, String... extra) {
    String file = write(dir, "chain.ndjson", ndjson(receipts)).toString();
    List<String> args = new ArrayList<>(List.of("verify", "--chain", "--keys", keys));
    args.addAll(List.of(extra));
    args.add(file);
    return run(args.toArray(String[]::new));
  }

  @Test
  void aValidChainExitsZero() {
    Run run = verifyChain(validChain());

    assertThat(run.exitCode()).isZero();
    assertThat(run.outLines())
        .endsWith(
            "CHAIN   " + AUTH + "  VALID (5 receipts)",
            "RESULT  VALID  5 receipts: 5 valid, 0 invalid; 1 chain: 1 valid, 0 invalid");
    assertThat(run.outLines().get(0))
        .isEqualTo("VALID   01JCLICREATE  (authorization_granted authorization.create)");
  }

  @Test
  void anInvalidReceiptInValidChainsEndsTheReportWithAnInvalidVerdict() {
    // The tampered receipt names no authorization: each chain stays valid, the run does not.
    ObjectNode tampered = scope("01JCLITAMPERED", "10:20", "allow");
    tampered.put("reason", "changed");
    tampered.putNull("authorization_id");
    List<ObjectNode> receipts = validChain();
    receipts.add(2, tampered);

    Run run = verifyChain(receipts);
    Run json = verifyChain(receipts, "--json");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.outLines())
        .contains("CHAIN   " + AUTH + "  VALID (5 receipts)")
        .last()
        .isEqualTo("RESULT  INVALID  6 receipts: 5 valid, 1 invalid; 1 chain: 1 valid, 0 invalid");
    assertThat(run.outLines()).noneMatch(l -> l.contains("INVALID (") && l.startsWith("CHAIN"));
    assertThat(json.exitCode()).isEqualTo(1);
    JsonNode doc = CliFixtures.parse(json.out());
    assertThat(doc.at("/chains/0/valid").asBoolean()).isTrue();
    assertThat(doc.at("/summary/ok").asBoolean()).isFalse();
    assertThat(doc.get("verdict").asText()).isEqualTo("invalid");
  }

  @Test
  void aValidRunEndsWithAValidVerdictInJsonToo() {
    Run json = verifyChain(validChain(), "--json");

    assertThat(json.exitCode()).isZero();
    assertThat(CliFixtures.parse(json.out()).get("verdict").asText()).isEqualTo("valid");
  }

  @Test
  void aChainSavedAsTheServicesReceiptAnswersIsVerifiedTheSame() {
    StringBuilder answers = new StringBuilder();
    for (ObjectNode receipt : validChain()) {
      answers
          .append("{\"status\":\"signed\",\"receipt\":")
          .append(CliFixtures.json(receipt))
          .append("}\n");
    }
    String file = write(dir, "answers.ndjson", answers.toString()).toString();

    Run run = run("verify", "--chain", "--keys", keys, file);

    assertThat(run.exitCode()).isZero();
    assertThat(run.outLines())
        .endsWith(
            "CHAIN   " + AUTH + "  VALID (5 receipts)",
            "RESULT  VALID  5 receipts: 5 valid, 0 invalid; 1 chain: 1 valid, 0 invalid");
  }

  @Test
  void withoutChainTheSameReceiptsOnlyVerifyOneByOne() {
    List<ObjectNode> chain = validChain();
    chain.remove(0);
    String file = write(dir, "chain.ndjson", ndjson(chain)).toString();

    Run run = run("verify", "--keys", keys, file);

    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).doesNotContain("CHAIN");
  }

  @Test
  void aMissingCreateReceiptBreaksTheChain() {
    List<ObjectNode> chain = validChain();
    chain.remove(0);

    Run run = verifyChain(chain);

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.outLines())
        .endsWith(
            "CHAIN   " + AUTH + "  INVALID (4 receipts, 1 problem)",
            "  MISSING_CREATE: the chain has no valid authorization.create receipt",
            "RESULT  INVALID  4 receipts: 4 valid, 0 invalid; 1 chain: 0 valid, 1 invalid");
  }

  @Test
  void aUseAfterRevokeBreaksTheChain() {
    List<ObjectNode> chain = validChain();
    chain.add(scope("01JCLILATE", "11:30", "allow"));

    Run run = verifyChain(chain);

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out())
        .contains(
            "VALID   01JCLILATE  (allow email.send)",
            "CHAIN   " + AUTH + "  INVALID (6 receipts, 1 problem)",
            "  USE_AFTER_REVOKE 01JCLILATE: scope receipt with decision allow issued at"
                + " 2026-06-01T11:30:00Z, after the revocation at 2026-06-01T11:00:00Z",
            "RESULT  INVALID  6 receipts: 6 valid, 0 invalid; 1 chain: 0 valid, 1 invalid");
  }

  @Test
  void everyProblemIsPrinted() {
    List<ObjectNode> chain = validChain();
    ObjectNode tampered = chain.get(2);
    tampered.put("decision", "allow"); // signature no longer matches
    chain.add(scope("01JCLILATE", "11:30", "confirm"));
    chain.add(1, scope("01JCLIEARLY", "09:00", "allow")); // out of order, before the create

    Run run = verifyChain(chain);

    assertThat(run.exitCode()).isEqualTo(1);
    List<String> problems =
        run.outLines().stream().filter(l -> l.startsWith("  ")).map(l -> l.split(":")[0]).toList();
    assertThat(problems)
        .containsExactlyInAnyOrder(
            "  INVALID_RECEIPT 01JCLISCOPE2",
            "  OUT_OF_ORDER 01JCLIEARLY",
            "  USE_AFTER_REVOKE 01JCLILATE");
    assertThat(run.outLines())
        .last()
        .asString()
        .startsWith("RESULT  INVALID  7 receipts: 6 valid, 1 invalid;");
  }

  @Test
  void receiptsAreGroupedByAuthorization() {
    List<ObjectNode> chain = validChain();
    ObjectNode other = scope("01JCLIOTHER", "10:20", "allow");
    other.remove("signature");
    other.put("authorization_id", "auth_other");
    chain.add(2, CliFixtures.SIGNER.sign(other));
    ObjectNode notFound = scope("01JCLINOTFOUND", "10:25", "deny");
    notFound.remove("signature");
    notFound.putNull("authorization_id");
    chain.add(3, CliFixtures.SIGNER.sign(notFound));

    Run run = verifyChain(chain);

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out())
        .contains(
            "CHAIN   " + AUTH + "  VALID (5 receipts)",
            "CHAIN   auth_other  INVALID (1 receipt, 1 problem)",
            "  MISSING_CREATE: the chain has no valid authorization.create receipt",
            "1 receipt belongs to no chain (no authorization_id)",
            "RESULT  INVALID  7 receipts: 7 valid, 0 invalid; 2 chains: 1 valid, 1 invalid");
  }

  @Test
  void chainReportsAppearInJsonOutput() {
    List<ObjectNode> chain = validChain();
    chain.remove(0);
    chain.add(scope("01JCLILATE", "11:30", "allow"));

    Run run = verifyChain(chain, "--json");

    assertThat(run.exitCode()).isEqualTo(1);
    JsonNode doc = CliFixtures.parse(run.out());
    assertThat(doc.get("receipts")).hasSize(5);
    JsonNode chains = doc.get("chains");
    assertThat(chains).hasSize(1);
    JsonNode report = chains.get(0);
    assertThat(report.get("authorization_id").asText()).isEqualTo(AUTH);
    assertThat(report.get("valid").asBoolean()).isFalse();
    assertThat(report.get("receipts").asInt()).isEqualTo(5);
    List<String> kinds = new ArrayList<>();
    report.get("problems").forEach(p -> kinds.add(p.get("kind").asText()));
    assertThat(kinds).containsExactly("MISSING_CREATE", "USE_AFTER_REVOKE");
    JsonNode late = report.get("problems").get(1);
    assertThat(late.get("receipt_id").asText()).isEqualTo("01JCLILATE");
    assertThat(late.get("source").asText()).endsWith("chain.ndjson:5");
    assertThat(report.get("problems").get(0).get("source").isNull()).isTrue();
    JsonNode summary = doc.get("summary");
    assertThat(summary.get("chains").asInt()).isEqualTo(1);
    assertThat(summary.get("valid_chains").asInt()).isZero();
    assertThat(summary.get("invalid_chains").asInt()).isEqualTo(1);
    assertThat(summary.get("invalid").asInt()).isZero();
    assertThat(summary.get("ok").asBoolean()).isFalse();
  }
}
