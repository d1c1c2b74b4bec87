package dev.agentauth.verifier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A malformed keys document is a configuration error, reported precisely at build time. */
class KeysDocumentTest {

  private static ObjectNode doc(Consumer<ObjectNode> change) {
    ObjectNode doc = Fixtures.keysDocument();
    change.accept(doc);
    return doc;
  }

  private static ObjectNode key(ObjectNode doc, int i) {
    return (ObjectNode) doc.get("keys").get(i);
  }

  private static void assertRejected(ObjectNode doc, String message) {
    assertThatThrownBy(() -> ReceiptVerifier.builder().keys(doc).build())
        .isInstanceOf(KeysDocumentException.class)
        .hasMessageContaining(message);
    assertThatThrownBy(() -> ReceiptVerifier.fromKeysJson(Fixtures.json(doc)))
        .isInstanceOf(KeysDocumentException.class)
        .hasMessageContaining(message);
    byte[] utf8 = Fixtures.json(doc).getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> ReceiptVerifier.builder().keysJson(utf8).build())
        .isInstanceOf(KeysDocumentException.class)
        .hasMessageContaining(message);
  }

  @Test
  void wellFormedDocumentBuildsAVerifierForItsWorkspace() {
    ReceiptVerifier verifier = ReceiptVerifier.fromKeysJson(Fixtures.json(Fixtures.keysDocument()));

    assertThat(verifier.workspaceId()).isEqualTo("ws_fixture");
    assertThat(verifier.toString()).contains("ws_fixture", "fixture/k0", "fixture/k1");
  }

  @Test
  void documentIsReadFromAFile(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("keys.json");
    Files.writeString(file, Fixtures.json(Fixtures.keysDocument()), StandardCharsets.UTF_8);

    ReceiptVerifier verifier = ReceiptVerifier.builder().keys(file).clock(Fixtures.CLOCK).build();

    assertThat(verifier.verify(Fixtures.K1.sign(Fixtures.scopeReceipt())).valid()).isTrue();
  }

  @Test
  void documentIsReadFromUtf8BytesCopiedWhenSet() {
    byte[] utf8 = Fixtures.json(Fixtures.keysDocument()).getBytes(StandardCharsets.UTF_8);
    ReceiptVerifier.Builder builder =
        ReceiptVerifier.builder().keysJson(utf8).clock(Fixtures.CLOCK);
    Arrays.fill(utf8, (byte) ' ');

    ReceiptVerifier verifier = builder.build();

    assertThat(verifier.verify(Fixtures.K1.sign(Fixtures.scopeReceipt())).valid()).isTrue();
  }

  @Test
  void bytesThatAreNotUtf8JsonAreRejected() {
    byte[] utf16 = Fixtures.json(Fixtures.keysDocument()).getBytes(StandardCharsets.UTF_16);

    assertThatThrownBy(() -> ReceiptVerifier.builder().keysJson(utf16).build())
        .isInstanceOf(KeysDocumentException.class)
        .hasMessageContaining("keys document is not UTF-8 JSON");
    assertThatThrownBy(
            () ->
                ReceiptVerifier.builder()
                    .keysJson("{\"keys\":".getBytes(StandardCharsets.UTF_8))
                    .build())
        .isInstanceOf(KeysDocumentException.class)
        .hasMessageContaining("keys document is not valid JSON");
  }

  @Test
  void aFileNameGivenAsJsonTextIsRejectedNamingTheFileForm() {
    assertThatThrownBy(() -> ReceiptVerifier.builder().keysJson("keys.json").build())
        .isInstanceOf(KeysDocumentException.class)
        .hasMessageContaining("expected the document's JSON text, found \"keys.json\"")
        .hasMessageContaining("looks like a file name")
        .hasMessageContaining("use keys(Path.of(\"keys.json\"))");
    assertThatThrownBy(() -> ReceiptVerifier.fromKeysJson("/etc/agentauth/ws_acme-keys.json"))
        .isInstanceOf(KeysDocumentException.class)
        .hasMessageContaining("keys(Path.of(\"/etc/agentauth/ws_acme-keys.json\"))");
  }

  @Test
  void textThatIsNeitherJsonNorAFileNameGetsNoFileHint() {
    assertThatThrownBy(() -> ReceiptVerifier.fromKeysJson("ws_acme"))
        .isInstanceOf(KeysDocumentException.class)
        .hasMessageContaining("keys document is not valid JSON")
        .hasMessageContaining("expected JSON text")
        .hasMessageNotContaining("file name");
  }

  @Test
  void missingFileIsAKeysDocumentException(@TempDir Path dir) {
    Path file = dir.resolve("absent.json");

    assertThatThrownBy(() -> ReceiptVerifier.builder().keys(file).build())
        .isInstanceOf(KeysDocumentException.class)
        .hasMessageContaining("cannot read keys document")
        .hasMessageContaining("absent.json");
  }

  @Test
  void buildingWithoutKeysIsAnIllegalState() {
    assertThatThrownBy(() -> ReceiptVerifier.builder().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no keys document")
        .hasMessageContaining("keys(Path), keysJson(String)");
  }

  @Test
  void unknownMembersAreIgnored() {
    ObjectNode doc =
        doc(
            d -> {
              d.put("generated_at", "2026-06-01T00:00:00Z");
              key(d, 0).put("status", "retired");
            });

    assertThat(ReceiptVerifier.builder().keys(doc).build().workspaceId()).isEqualTo("ws_fixture");
  }

  @Test
  void textThatIsNotJsonIsRejected() {
    assertThatThrownBy(() -> ReceiptVerifier.fromKeysJson("{\"workspace_id\":"))
        .isInstanceOf(KeysDocumentException.class)
        .hasMessageContaining("keys document is not valid JSON");
    assertThatThrownBy(() -> ReceiptVerifier.fromKeysJson(""))
        .isInstanceOf(KeysDocumentException.class)
        .hasMessageContaining("empty");
    assertThatThrownBy(() -> ReceiptVerifier.fromKeysJson("[]"))
        .isInstanceOf(KeysDocumentException.class)
        .hasMessageContaining("must be a JSON object, found array");
  }

  @Test
  void duplicateMembersAreRejected() {
    String text =
        Fixtures.json(Fixtures.keysDocument())
            .replaceFirst("\\{", "{\"workspace_id\":\"ws_evil\",");

    assertThatThrownBy(() -> ReceiptVerifier.fromKeysJson(text))
        .isInstanceOf(KeysDocumentException.class)
        .hasMessageContaining("Duplicate field 'workspace_id'");
  }

  @Test
  void workspaceIdMustBeANonEmptyString() {
    assertRejected(doc(d -> d.remove("workspace_id")), "workspace_id is missing");
    assertRejected(doc(d -> d.put("workspace_id", "")), "workspace_id must be a non-empty string");
    assertRejected(
        doc(d -> d.put("workspace_id", 7)),
        "workspace_id must be a non-empty string, found number 7");
  }

  @Test
  void keysMustBeANonEmptyArrayOfObjects() {
    assertRejected(doc(d -> d.remove("keys")), "has no keys member");
    assertRejected(doc(d -> d.put("keys", "k")), "keys must be an array, found string");
    assertRejected(doc(d -> d.putArray("keys")), "lists no keys");
    assertRejected(
        doc(d -> ((com.fasterxml.jackson.databind.node.ArrayNode) d.get("keys")).add(1)),
        "keys[2] must be an object, found number");
  }

  @Test
  void everyKeyMemberIsChecked() {
    assertRejected(doc(d -> key(d, 1).remove("key_id")), "keys[1].key_id is missing");
    assertRejected(
        doc(d -> key(d, 0).put("alg", "RS256")),
        "keys[0].alg must be \"Ed25519\", found \"RS256\"");
    assertRejected(doc(d -> key(d, 0).remove("active_from")), "keys[0].active_from is missing");
    assertRejected(doc(d -> key(d, 0).remove("active_until")), "keys[0].active_until is missing");
    assertRejected(
        doc(d -> key(d, 1).putNull("active_from")),
        "keys[1].active_from must be an RFC 3339 timestamp with offset, found null");
    assertRejected(
        doc(d -> key(d, 1).put("active_from", "2026-01-01")),
        "keys[1].active_from must be an RFC 3339 timestamp");
    assertRejected(
        doc(d -> key(d, 0).put("active_until", "2024-12-31T00:00:00Z")),
        "keys[0].active_until (2024-12-31T00:00:00Z) must be after active_from");
    assertRejected(
        doc(d -> key(d, 1).put("key_id", "fixture/k0")),
        "keys[1].key_id \"fixture/k0\" duplicates keys[0].key_id");
  }

  @Test
  void publicKeyMustBeUnpaddedBase64UrlOfAValidPoint() {
    String valid = Fixtures.K1.publicKeyBase64Url();
    Base64.Encoder url = Base64.getUrlEncoder().withoutPadding();
    byte[] notOnCurve = new byte[32];
    notOnCurve[0] = 2;

    assertRejected(
        doc(d -> key(d, 1).put("public_key", valid + "=")),
        "keys[1].public_key must be unpadded base64url: padding");
    assertRejected(
        doc(d -> key(d, 1).put("public_key", valid.replace(valid.charAt(3), '+'))),
        "outside the base64url alphabet");
    assertRejected(
        doc(d -> key(d, 1).put("public_key", url.encodeToString(new byte[31]))),
        "must decode to a 32-byte Ed25519 public key, got 31 bytes");
    assertRejected(
        doc(d -> key(d, 1).put("public_key", url.encodeToString(notOnCurve))),
        "keys[1].public_key is not a valid Ed25519 public key");
    assertRejected(
        doc(d -> key(d, 1).putNull("public_key")),
        "keys[1].public_key must be a non-empty string, found null");
  }

  @Test
  void clockMayNotBeNull() {
    assertThatThrownBy(() -> ReceiptVerifier.builder().clock(null))
        .isInstanceOf(NullPointerException.class);
  }
}
