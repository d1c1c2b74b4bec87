package dev.agentauth.server;

import static dev.agentauth.server.CheckFixtures.authorizeScopes;
import static dev.agentauth.server.CheckFixtures.check;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentauth.server.ServerHarness.Resp;
import dev.agentauth.verifier.log.Checkpoint;
import dev.agentauth.verifier.log.CheckpointVerifier;
import dev.agentauth.verifier.log.CosignatureSigner;
import dev.agentauth.verifier.log.LogHash;
import dev.agentauth.verifier.log.LogVerificationException;
import dev.agentauth.verifier.log.MerkleProofs;
import dev.agentauth.verifier.log.SignedNote;
import dev.agentauth.verifier.log.VerifiedCheckpoint;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The receipt log end to end (decisions.md §18), on the store the suite runs on: every signed
 * receipt becomes a leaf; checkpoints verify against the keys document (also across a key
 * rotation); entries, inclusion and consistency proofs verify with the verifier library; witnesses
 * cosign; every parameter's bad value is a problem naming it.
 */
class ReceiptLogIT {
  private ServerHarness h;
  private String ws;

  @BeforeEach
  void start() {
    h = ServerHarness.start();
    ws = h.workspaceId();
  }

  @AfterEach
  void stop() {
    h.close();
  }

  /** Makes {@code n} checks (one receipt each) and waits for their signatures. */
  private List<String> receipts(int n) {
    String auth = authorizeScopes(h, "calendar.read");
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ids.add(CheckFixtures.receiptId(check(h, auth, "calendar.read").waitForSigning().result()));
    }
    return ids;
  }

  private Resp publicGet(String path) {
    return h.send("GET", path, null, null, Map.of());
  }

  /** Polls until the newest checkpoint covers at least {@code size} leaves; returns its note. */
  private String checkpointOf(long size) {
    long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
    while (true) {
      Resp r = publicGet("/v1/workspaces/" + ws + "/log/checkpoint");
      if (r.status() == 200) {
        assertThat(r.header("Content-Type")).startsWith("text/plain");
        if (verify(r.raw()).checkpoint().treeSize() >= size) {
          return r.raw();
        }
      } else {
        assertThat(r.status()).as(r.raw()).isEqualTo(404);
      }
      assertThat(System.nanoTime()).as("a checkpoint of %d within 15 s", size).isLessThan(deadline);
      h.server.logIntegrator().integrateAll();
      Thread.onSpinWait();
    }
  }

  private VerifiedCheckpoint verify(String note) {
    return CheckpointVerifier.create(h.keys(ws), List.of()).verify(note);
  }

  private static List<byte[]> hashes(JsonNode proof) {
    List<byte[]> out = new ArrayList<>();
    proof.path("hashes").forEach(x -> out.add(Base64.getDecoder().decode(x.asText())));
    return out;
  }

  private List<JsonNode> entries(long start, int limit) {
    Resp r = h.get("/v1/log/entries?start=" + start + "&limit=" + limit);
    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    List<JsonNode> out = new ArrayList<>();
    r.body().path("entries").forEach(out::add);
    return out;
  }

  @Test
  void everySignedReceiptIsALeafAndEveryProofVerifies() {
    assertThat(publicGet("/v1/workspaces/" + ws + "/log/checkpoint").status()).isEqualTo(404);
    List<String> first = receipts(5);
    // The bootstrap made no receipt; the authorization made one: 6 leaves.
    Checkpoint small = verify(checkpointOf(6)).checkpoint();
    List<String> second = receipts(12);
    Checkpoint big = verify(checkpointOf(small.treeSize() + 12)).checkpoint();
    assertThat(big.origin())
        .isEqualTo(h.server.baseUrl().replace("http://", "") + "/agentauth/" + ws);

    // Entries: every receipt of the workspace, each exactly once, in log order.
    List<JsonNode> all = entries(0, 1000);
    assertThat(all.size()).isGreaterThanOrEqualTo((int) big.treeSize());
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < all.size(); i++) {
      assertThat(all.get(i).path("log_index").asLong()).isEqualTo(i);
      assertThat(seen.add(all.get(i).path("receipt").path("receipt_id").asText())).isTrue();
    }
    List<String> listed = new ArrayList<>();
    h.get("/v1/receipts?limit=100")
        .body()
        .path("receipts")
        .forEach(r -> listed.add(r.path("receipt_id").asText()));
    assertThat(seen).containsExactlyInAnyOrderElementsOf(listed);
    assertThat(seen).containsAll(first).containsAll(second);
    assertThat(entries(3, 2)).extracting(e -> e.path("log_index").asLong()).containsExactly(3L, 4L);
    assertThat(entries(big.treeSize() + 100, 10)).isEmpty();

    // Inclusion of every leaf in both checkpoints; log_index on the receipt.
    for (int i = 0; i < big.treeSize(); i++) {
      JsonNode e = all.get(i);
      String id = e.path("receipt").path("receipt_id").asText();
      byte[] leaf = LogHash.leaf(e.path("receipt"));
      Resp lookup = h.get("/v1/receipts/" + id);
      assertThat(lookup.body().path("log_index").asLong(-1)).isEqualTo(i);
      assertThat(lookup.body().path("receipt")).isEqualTo(e.path("receipt"));
      for (Checkpoint c : List.of(small, big)) {
        Resp p = h.get("/v1/log/proof/inclusion?receipt_id=" + id + "&tree_size=" + c.treeSize());
        if (i >= c.treeSize()) {
          assertThat(p.status()).as(p.raw()).isEqualTo(404);
          continue;
        }
        assertThat(p.status()).as(p.raw()).isEqualTo(200);
        assertThat(p.body().path("log_index").asLong()).isEqualTo(i);
        assertThat(p.body().path("tree_size").asLong()).isEqualTo(c.treeSize());
        MerkleProofs.verifyInclusion(i, c.treeSize(), leaf, hashes(p.body()), c.rootHash());
      }
    }
    // Without tree_size: the log's current size.
    Resp current = h.get("/v1/log/proof/inclusion?receipt_id=" + first.get(0));
    assertThat(current.body().path("tree_size").asLong()).isGreaterThanOrEqualTo(big.treeSize());

    // Consistency between the two checkpoints, and of the old one with itself.
    Resp c = h.get("/v1/log/proof/consistency?from=" + small.treeSize() + "&to=" + big.treeSize());
    assertThat(c.status()).as(c.raw()).isEqualTo(200);
    MerkleProofs.verifyConsistency(
        small.treeSize(), big.treeSize(), small.rootHash(), big.rootHash(), hashes(c.body()));
    Resp same = h.get("/v1/log/proof/consistency?from=3&to=3");
    assertThat(same.body().path("hashes").size()).isZero();
    // A forged root fails: the proof is not vacuous.
    byte[] forged = big.rootHash();
    forged[0] ^= 1;
    assertThatThrownBy(
            () ->
                MerkleProofs.verifyConsistency(
                    small.treeSize(), big.treeSize(), small.rootHash(), forged, hashes(c.body())))
        .isInstanceOf(LogVerificationException.class);

    // The old checkpoint is served again by its size.
    Resp old = publicGet("/v1/workspaces/" + ws + "/log/checkpoint?tree_size=" + small.treeSize());
    assertThat(old.status()).as(old.raw()).isEqualTo(200);
    assertThat(verify(old.raw()).checkpoint()).isEqualTo(small);
  }

  @Test
  void checkpointsAfterARotationAreSignedWithTheNewKeyAndOldOnesStillVerify() {
    receipts(2);
    String before = checkpointOf(3);
    Checkpoint c1 = verify(before).checkpoint();
    Resp rotated = h.admin("/admin/v1/workspaces/" + ws + "/signing-keys/rotate", null);
    assertThat(rotated.status()).as(rotated.raw()).isIn(200, 201);
    // The new key takes over a millisecond after the rotation, by the server's clock.
    h.clock.advance(Duration.ofSeconds(1));
    receipts(2);
    String after = checkpointOf(c1.treeSize() + 2);
    int oldKey = SignedNote.parse(before).signatures().get(0).keyHash();
    int newKey = SignedNote.parse(after).signatures().get(0).keyHash();
    assertThat(newKey).isNotEqualTo(oldKey);
    // Both verify against the keys document, which keeps the retired key.
    assertThat(verify(after).checkpoint().treeSize()).isGreaterThan(c1.treeSize());
    Resp again = publicGet("/v1/workspaces/" + ws + "/log/checkpoint?tree_size=" + c1.treeSize());
    assertThat(again.raw()).isEqualTo(before);
    assertThat(verify(again.raw()).checkpoint()).isEqualTo(c1);
  }

  @Test
  void witnessesCosignAndTheCheckpointServesTheirCosignatures() {
    CosignatureSigner w1 = CosignatureSigner.generate("witness-one.example", new SecureRandom());
    CosignatureSigner w2 = CosignatureSigner.generate("witness-two.example", new SecureRandom());
    CosignatureSigner stranger = CosignatureSigner.generate("stranger.example", new SecureRandom());
    assertThat(h.get("/v1/log/witnesses").body().path("witnesses").size()).isZero();
    Resp put =
        h.put(
            "/v1/log/witnesses",
            h.json(
                "{\"witnesses\":[\""
                    + w1.witnessKey().vkey()
                    + "\",\""
                    + w2.witnessKey().vkey()
                    + "\"]}"));
    assertThat(put.status()).as(put.raw()).isEqualTo(200);
    assertThat(h.get("/v1/log/witnesses").body().path("witnesses"))
        .extracting(JsonNode::asText)
        .containsExactly(w1.witnessKey().vkey(), w2.witnessKey().vkey());
    receipts(1);
    String note = checkpointOf(2);
    Checkpoint c = verify(note).checkpoint();
    String path = "/v1/workspaces/" + ws + "/log/cosignatures";
    long now = System.currentTimeMillis() / 1000;
    Resp ok = h.send("POST", path, note + w1.cosign(c, now), null, Map.of());
    assertThat(ok.status()).as(ok.raw()).isEqualTo(200);
    assertThat(ok.body().path("accepted").asInt()).isEqualTo(1);
    // The same again is accepted again and stored once.
    assertThat(h.send("POST", path, note + w1.cosign(c, now), null, Map.of()).status())
        .isEqualTo(200);
    Resp served = publicGet("/v1/workspaces/" + ws + "/log/checkpoint?tree_size=" + c.treeSize());
    VerifiedCheckpoint v =
        CheckpointVerifier.create(h.keys(ws), List.of(w1.witnessKey(), w2.witnessKey()))
            .verify(served.raw());
    assertThat(v.witnesses()).containsExactly("witness-one.example");
    assertThat(served.raw()).isEqualTo(note + w1.cosign(c, now));
    Resp cosigned = publicGet("/v1/workspaces/" + ws + "/log/checkpoint?cosigned=1");
    assertThat(cosigned.status()).as(cosigned.raw()).isEqualTo(200);
    assertThat(verify(cosigned.raw()).checkpoint()).isEqualTo(c);
    Resp two = publicGet("/v1/workspaces/" + ws + "/log/checkpoint?cosigned=2");
    assertThat(two.status()).as(two.raw()).isEqualTo(404);
    assertThat(two.code()).isEqualTo("not_found");

    // Refusals: a stranger, a bad signature, a checkpoint this log did not issue, garbage.
    Resp unknown = h.send("POST", path, note + stranger.cosign(c, now), null, Map.of());
    assertThat(unknown.status()).as(unknown.raw()).isEqualTo(400);
    assertThat(unknown.fields()).containsExactly("body");
    assertThat(unknown.body().toString()).contains("stranger.example");
    Checkpoint other = new Checkpoint(c.origin(), c.treeSize(), new byte[32]);
    Resp badSig = h.send("POST", path, note + w2.cosign(other, now), null, Map.of());
    assertThat(badSig.status()).as(badSig.raw()).isEqualTo(400);
    Resp notIssued =
        h.send("POST", path, other.body() + "\n" + w2.cosign(other, now), null, Map.of());
    assertThat(notIssued.status()).as(notIssued.raw()).isEqualTo(400);
    assertThat(notIssued.body().toString()).contains("issued no checkpoint");
    Checkpoint elsewhere =
        new Checkpoint("evil.example/agentauth/" + ws, c.treeSize(), c.rootHash());
    Resp wrongOrigin =
        h.send("POST", path, elsewhere.body() + "\n" + w2.cosign(elsewhere, now), null, Map.of());
    assertThat(wrongOrigin.status()).as(wrongOrigin.raw()).isEqualTo(400);
    assertThat(h.send("POST", path, "not a note", null, Map.of()).status()).isEqualTo(400);
    StringBuilder many = new StringBuilder(note);
    for (int i = 0; i < 16; i++) {
      many.append(w1.cosign(c, now + i));
    }
    Resp tooMany = h.send("POST", path, many.toString(), null, Map.of());
    assertThat(tooMany.status()).as(tooMany.raw()).isEqualTo(400);
    assertThat(tooMany.body().toString()).contains("at most 16");
    Resp huge = h.send("POST", path, "x".repeat(16 * 1024 + 1), null, Map.of());
    assertThat(huge.status()).as(huge.raw()).isEqualTo(413);
    Resp nowhere = h.send("POST", "/v1/workspaces/ws_none/log/cosignatures", note, null, Map.of());
    assertThat(nowhere.status()).as(nowhere.raw()).isEqualTo(400);
    // A well-formed note of a workspace that does not exist: 404.
    Checkpoint noWorkspace =
        new Checkpoint(
            h.server.baseUrl().replace("http://", "") + "/agentauth/ws_none", 1, new byte[32]);
    Resp noSuch =
        h.send(
            "POST",
            "/v1/workspaces/ws_none/log/cosignatures",
            noWorkspace.body() + "\n" + w1.cosign(noWorkspace, now),
            null,
            Map.of());
    assertThat(noSuch.status()).as(noSuch.raw()).isEqualTo(404);
    assertThat(noSuch.code()).isEqualTo("not_found");
    // Nothing refused was stored.
    VerifiedCheckpoint still =
        CheckpointVerifier.create(h.keys(ws), List.of(w1.witnessKey(), w2.witnessKey()))
            .verify(
                publicGet("/v1/workspaces/" + ws + "/log/checkpoint?tree_size=" + c.treeSize())
                    .raw());
    assertThat(still.cosignatures()).hasSize(1);
  }

  private void assertInvalid(Resp r, String field) {
    assertThat(r.status()).as(r.raw()).isEqualTo(400);
    assertThat(r.code()).isEqualTo("invalid_request");
    assertThat(r.fields()).as(r.raw()).containsExactly(field);
  }

  @Test
  void everyParameterRefusesBadValuesNamingIt() {
    String id = receipts(1).get(0);
    checkpointOf(2);
    for (String bad : List.of("-1", "x", "1.5", "", "99999999999999999999")) {
      assertInvalid(h.get("/v1/log/entries?start=" + bad), "start");
    }
    for (String bad : List.of("0", "1001", "x")) {
      assertInvalid(h.get("/v1/log/entries?limit=" + bad), "limit");
    }
    assertInvalid(h.get("/v1/log/proof/inclusion"), "receipt_id");
    for (String bad : List.of("0", "-2", "x", "3")) {
      assertInvalid(
          h.get("/v1/log/proof/inclusion?receipt_id=" + id + "&tree_size=" + bad), "tree_size");
    }
    Resp unknown = h.get("/v1/log/proof/inclusion?receipt_id=01NOSUCHRECEIPT00000000000");
    assertThat(unknown.status()).as(unknown.raw()).isEqualTo(404);
    assertInvalid(h.get("/v1/log/proof/consistency?to=2"), "from");
    assertInvalid(h.get("/v1/log/proof/consistency?from=1"), "to");
    assertInvalid(h.get("/v1/log/proof/consistency?from=0&to=2"), "from");
    assertInvalid(h.get("/v1/log/proof/consistency?from=x&to=2"), "from");
    assertInvalid(h.get("/v1/log/proof/consistency?from=2&to=1"), "from");
    assertInvalid(h.get("/v1/log/proof/consistency?from=1&to=3"), "to");
    String cp = "/v1/workspaces/" + ws + "/log/checkpoint";
    for (String bad : List.of("0", "x", "-1")) {
      assertInvalid(publicGet(cp + "?tree_size=" + bad), "tree_size");
    }
    for (String bad : List.of("0", "17", "x")) {
      assertInvalid(publicGet(cp + "?cosigned=" + bad), "cosigned");
    }
    assertInvalid(publicGet(cp + "?cosigned=1&tree_size=1"), "cosigned");
    assertThat(publicGet(cp + "?tree_size=1000").status()).isEqualTo(404);
    assertThat(publicGet("/v1/workspaces/ws_none/log/checkpoint").status()).isEqualTo(404);
    assertInvalid(h.put("/v1/log/witnesses", h.json("{}")), "witnesses");
    assertInvalid(h.put("/v1/log/witnesses", h.json("{\"witnesses\":[\"nope\"]}")), "witnesses[0]");
    String vkey = CosignatureSigner.generate("w.example", new SecureRandom()).witnessKey().vkey();
    String again = CosignatureSigner.generate("w.example", new SecureRandom()).witnessKey().vkey();
    assertInvalid(
        h.put("/v1/log/witnesses", h.json("{\"witnesses\":[\"" + vkey + "\",\"" + again + "\"]}")),
        "witnesses[1]");
    StringBuilder seventeen = new StringBuilder("{\"witnesses\":[");
    for (int i = 0; i < 17; i++) {
      seventeen
          .append(i == 0 ? "" : ",")
          .append('"')
          .append(CosignatureSigner.generate("w" + i, new SecureRandom()).witnessKey().vkey())
          .append('"');
    }
    assertInvalid(h.put("/v1/log/witnesses", h.json(seventeen + "]}")), "witnesses");
    assertThat(h.get("/v1/log/witnesses").body().path("witnesses").size()).isZero();
  }
}
