package dev.agentauth.verifier.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Signed checkpoints against a keys document (current and retired keys) and witness keys. */
class CheckpointVerifierTest {

  static final String ORIGIN = "log.example/agentauth/ws_1";
  static final Checkpoint CHECKPOINT =
      new Checkpoint(ORIGIN, 3, NaiveMerkle.mth(NaiveMerkle.leaves(3)));
  static final NoteSigner CURRENT = NoteSigner.ed25519(ORIGIN, WitnessTest.seed(1));
  static final NoteSigner RETIRED = NoteSigner.ed25519(ORIGIN, WitnessTest.seed(2));
  static final CosignatureSigner W1 = CosignatureSigner.ed25519("w1", WitnessTest.seed(11));
  static final CosignatureSigner W2 = CosignatureSigner.ed25519("w2", WitnessTest.seed(12));

  static JsonNode keysDocument(String workspace, NoteSigner... signers) {
    ObjectNode doc = new ObjectMapper().createObjectNode().put("workspace_id", workspace);
    ArrayNode keys = doc.putArray("keys");
    int i = 0;
    for (NoteSigner s : signers) {
      keys.addObject()
          .put("key_id", "k" + i++)
          .put("alg", "Ed25519")
          .put("public_key", Base64.getUrlEncoder().withoutPadding().encodeToString(s.publicKey()));
    }
    return doc;
  }

  static final CheckpointVerifier VERIFIER =
      CheckpointVerifier.create(
          keysDocument("ws_1", CURRENT, RETIRED), List.of(W1.witnessKey(), W2.witnessKey()));

  @Test
  void aCheckpointSignedByTheCurrentOrARetiredKeyVerifies() {
    assertThat(VERIFIER.verify(CURRENT.sign(CHECKPOINT.body())).checkpoint()).isEqualTo(CHECKPOINT);
    assertThat(VERIFIER.verify(RETIRED.sign(CHECKPOINT.body())).checkpoint()).isEqualTo(CHECKPOINT);
  }

  @Test
  void aCheckpointSignedByAKeyNotInTheKeysDocumentIsRefused() {
    NoteSigner stranger = NoteSigner.ed25519(ORIGIN, WitnessTest.seed(3));
    assertThatThrownBy(() -> VERIFIER.verify(stranger.sign(CHECKPOINT.body())))
        .isInstanceOf(LogVerificationException.class)
        .hasMessageContaining("not signed by any key of workspace ws_1");
  }

  @Test
  void aSignatureWithTheRightKeyHashButAForgedSignatureIsRefused() {
    String note = CURRENT.sign(CHECKPOINT.body());
    SignedNote parsed = SignedNote.parse(note);
    SignedNote.Signature s = parsed.signatures().get(0);
    byte[] bytes = s.signature();
    bytes[10] ^= 1;
    String forged =
        new SignedNote(parsed.text(), List.of(new SignedNote.Signature(ORIGIN, s.keyHash(), bytes)))
            .format();
    assertThatThrownBy(() -> VERIFIER.verify(forged)).hasMessageContaining("not signed");
  }

  @Test
  void aCheckpointOfAnotherWorkspaceOrWithAChangedBodyIsRefused() {
    Checkpoint other = new Checkpoint("log.example/agentauth/ws_2", 3, CHECKPOINT.rootHash());
    NoteSigner signer = NoteSigner.ed25519(other.origin(), WitnessTest.seed(1));
    assertThatThrownBy(() -> VERIFIER.verify(signer.sign(other.body())))
        .hasMessageContaining("is not <host>/agentauth/ws_1");
    String changed = CURRENT.sign(CHECKPOINT.body()).replaceFirst("\n3\n", "\n4\n");
    assertThatThrownBy(() -> VERIFIER.verify(changed)).hasMessageContaining("not signed");
  }

  @Test
  void cosignaturesByGivenWitnessesCountOthersAreListedAsIgnored() {
    CosignatureSigner stranger = CosignatureSigner.ed25519("w3", WitnessTest.seed(13));
    String note =
        CURRENT.sign(CHECKPOINT.body())
            + W1.cosign(CHECKPOINT, 10)
            + stranger.cosign(CHECKPOINT, 11)
            + W2.cosign(CHECKPOINT, 12);
    VerifiedCheckpoint v = VERIFIER.verify(note);
    assertThat(v.witnesses()).containsExactly("w1", "w2");
    assertThat(v.cosignatures().get(1).timestamp()).isEqualTo(12);
    assertThat(v.ignored()).hasSize(1).allMatch(s -> s.startsWith("w3+"));
  }

  @Test
  void aBadCosignatureByAGivenWitnessIsRefused() {
    Checkpoint other = new Checkpoint(ORIGIN, 4, CHECKPOINT.rootHash());
    String note = CURRENT.sign(CHECKPOINT.body()) + W1.cosign(other, 10);
    assertThatThrownBy(() -> VERIFIER.verify(note))
        .hasMessageContaining("cosignature by witness w1 does not verify");
  }
}
