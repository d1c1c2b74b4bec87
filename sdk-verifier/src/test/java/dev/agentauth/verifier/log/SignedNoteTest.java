package dev.agentauth.verifier.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/**
 * Signed notes: the C2SP signed-note examples of golang.org/x/mod/sumdb/note's tests (note_test.go,
 * TestSign and TestOpen, golang/mod commit fe2ec04f) and strict parsing.
 */
class SignedNoteTest {

  /** PeterNeumann's private key from note_test.go: 0x01 (Ed25519) and the 32-byte seed. */
  static final String PETER_SKEY_KEY = "AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";

  static final String TEXT =
      "If you think cryptography is the answer to your problem,\n"
          + "then you don't know what your problem is.\n";

  static final String PETER_SIG =
      "\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n";

  static final String ENOCH_SIG =
      "\u2014 EnochRoot rwz+eBzmZa0SO3NbfRGzPCpDckykFXSdeX+MNtCOXm2/5n2tiOHp+vAF1aGrQ5ovTG01oOTGwnWLox33WWd1RvMc+QQ=\n";

  static byte[] peterSeed() {
    byte[] key = Base64.getDecoder().decode(PETER_SKEY_KEY);
    assertThat(key[0]).isEqualTo((byte) 0x01);
    return Arrays.copyOfRange(key, 1, 33);
  }

  @Test
  void signsTheGoExampleByteForByte() {
    NoteSigner signer = NoteSigner.ed25519("PeterNeumann", peterSeed());
    assertThat(NoteSigner.keyHash("PeterNeumann", signer.publicKey())).isEqualTo(0xc74f20a3);
    // The vkey of note_test.go: PeterNeumann+c74f20a3+<base64(0x01 ‖ public key)>.
    byte[] vkey = Base64.getDecoder().decode("ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW");
    assertThat(vkey[0]).isEqualTo((byte) 0x01);
    assertThat(signer.publicKey()).isEqualTo(Arrays.copyOfRange(vkey, 1, 33));
    assertThat(signer.sign(TEXT)).isEqualTo(TEXT + "\n" + PETER_SIG);
  }

  @Test
  void parsesTheGoExampleWithTwoSignatures() {
    SignedNote note = SignedNote.parse(TEXT + "\n" + PETER_SIG + ENOCH_SIG);
    assertThat(note.text()).isEqualTo(TEXT);
    assertThat(note.signatures()).hasSize(2);
    assertThat(note.signatures().get(0).keyName()).isEqualTo("PeterNeumann");
    assertThat(note.signatures().get(0).keyHash()).isEqualTo(0xc74f20a3);
    assertThat(note.signatures().get(0).signature()).hasSize(64);
    assertThat(note.signatures().get(1).keyName()).isEqualTo("EnochRoot");
    assertThat(note.signatures().get(1).keyHash()).isEqualTo(0xaf0cfe78);
    assertThat(note.format()).isEqualTo(TEXT + "\n" + PETER_SIG + ENOCH_SIG);
  }

  @Test
  void malformedNotesAreRefusedNamingTheProblem() {
    assertRefused(TEXT + PETER_SIG, "no empty line");
    assertRefused(TEXT + "\n", "no signature line");
    assertRefused(TEXT + "\n" + PETER_SIG.strip(), "does not end with a newline");
    assertRefused(TEXT + "\n" + PETER_SIG.replace('\u2014', '-'), "em dash");
    assertRefused(TEXT + "\n" + PETER_SIG.replace("PeterNeumann", "Peter+Neumann"), "'+'");
    assertRefused(TEXT + "\n" + PETER_SIG.replace("PeterNeumann", "Peter\u00a0Neumann"), "spaces");
    assertRefused(TEXT + "\n" + PETER_SIG.replace("PeterNeumann ", "PeterNeumann  "), "'—");
    assertRefused(TEXT + "\n" + PETER_SIG.replace("AM=", "AM"), "base64");
    assertRefused(TEXT + "\n" + PETER_SIG.replace("AM=", "AN="), "canonical");
    assertRefused(TEXT + "\n" + "\u2014 Peter AAAA\n", "4-byte key hash");
    assertRefused("bad\u0007text\n\n" + PETER_SIG, "control character");
    assertRefused("\n" + PETER_SIG, "no empty line");
    assertRefused(TEXT + "\n" + PETER_SIG.repeat(SignedNote.MAX_SIGNATURES + 1), "at most 100");
    assertRefused("x".repeat(SignedNote.MAX_NOTE_BYTES) + "\n\n" + PETER_SIG, "1048576 bytes");
    assertRefused("\u00e9".repeat(SignedNote.MAX_NOTE_BYTES / 2) + "\n\n" + PETER_SIG, "bytes");
    assertRefused("\ud800x\n\n" + PETER_SIG, "unpaired surrogate");
  }

  private static void assertRefused(String note, String message) {
    assertThatThrownBy(() -> SignedNote.parse(note))
        .isInstanceOf(LogVerificationException.class)
        .hasMessageContaining(message);
  }

  @Test
  void aNoteTextCanHoldEmptyLinesTheLastEmptyLineSeparatesTheSignatures() {
    String text = "a\n\nb\n";
    SignedNote note = SignedNote.parse(NoteSigner.ed25519("k", peterSeed()).sign(text));
    assertThat(note.text()).isEqualTo(text);
  }
}
