package dev.agentauth.verifier;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;

/**
 * A parsed and validated keys document ({@code GET /v1/workspaces/{id}/keys}): the workspace id and
 * its Ed25519 public keys, decoded once. Members not defined by the service are ignored, so a
 * server adding informational members does not break verifiers.
 */
final class KeysDocument {

  /**
   * One published key, decoded (Bouncy Castle caches the decompressed point), with its {@link
   * KeyFingerprint} and the message of a receipt it verified (built once, not per receipt).
   */
  record Key(
      String keyId,
      Ed25519PublicKeyParameters publicKey,
      String fingerprint,
      Instant activeFrom,
      Instant activeUntil,
      String verifiedMessage) {

    boolean activeAt(Instant t) {
      return !t.isBefore(activeFrom) && (activeUntil == null || t.isBefore(activeUntil));
    }

    String window() {
      return "[" + activeFrom + ", " + (activeUntil == null ? "no end" : activeUntil) + ")";
    }
  }

  final String workspaceId;
  final Map<String, Key> keys;

  /** The keys in the document's order. */
  final List<Key> inOrder;

  private KeysDocument(String workspaceId, Map<String, Key> keys, List<Key> inOrder) {
    this.workspaceId = workspaceId;
    this.keys = keys;
    this.inOrder = inOrder;
  }

  static KeysDocument parse(JsonNode doc) {
    if (doc == null || doc.isMissingNode()) {
      throw new KeysDocumentException("keys document is empty: expected a JSON object");
    }
    if (!doc.isObject()) {
      throw new KeysDocumentException(
          "keys document must be a JSON object, found " + Canonicalizer.typeName(doc));
    }
    String workspaceId = nonEmptyString(doc, "workspace_id", "workspace_id");
    JsonNode keys = doc.get("keys");
    if (keys == null) {
      throw new KeysDocumentException("keys document has no keys member");
    }
    if (!keys.isArray()) {
      throw new KeysDocumentException(
          "keys document: keys must be an array, found " + Canonicalizer.typeName(keys));
    }
    if (keys.isEmpty()) {
      throw new KeysDocumentException(
          "keys document for workspace " + workspaceId + " lists no keys: nothing could verify");
    }
    Map<String, Key> byId = new HashMap<>();
    List<Key> inOrder = new ArrayList<>(keys.size());
    Map<String, Integer> indexById = new HashMap<>();
    for (int i = 0; i < keys.size(); i++) {
      String at = "keys[" + i + "]";
      JsonNode k = keys.get(i);
      if (!k.isObject()) {
        throw new KeysDocumentException(
            "keys document: " + at + " must be an object, found " + Canonicalizer.typeName(k));
      }
      String keyId = nonEmptyString(k, "key_id", at + ".key_id");
      String alg = nonEmptyString(k, "alg", at + ".alg");
      if (!"Ed25519".equals(alg)) {
        throw new KeysDocumentException(
            "keys document: " + at + ".alg must be \"Ed25519\", found " + Json.show(k.get("alg")));
      }
      Ed25519PublicKeyParameters publicKey = publicKey(k, at + ".public_key");
      Instant activeFrom = timestamp(k, "active_from", at + ".active_from", false);
      Instant activeUntil = timestamp(k, "active_until", at + ".active_until", true);
      if (activeUntil != null && !activeUntil.isAfter(activeFrom)) {
        throw new KeysDocumentException(
            "keys document: "
                + at
                + ".active_until ("
                + activeUntil
                + ") must be after active_from ("
                + activeFrom
                + ")");
      }
      Integer previous = indexById.putIfAbsent(keyId, i);
      if (previous != null) {
        throw new KeysDocumentException(
            "keys document: "
                + at
                + ".key_id "
                + Json.show(k.get("key_id"))
                + " duplicates keys["
                + previous
                + "].key_id");
      }
      Key key =
          new Key(
              keyId,
              publicKey,
              KeyFingerprint.of(publicKey.getEncoded()),
              activeFrom,
              activeUntil,
              "verified with key " + keyId);
      byId.put(keyId, key);
      inOrder.add(key);
    }
    return new KeysDocument(workspaceId, Map.copyOf(byId), List.copyOf(inOrder));
  }

  private static String nonEmptyString(JsonNode obj, String name, String path) {
    JsonNode v = obj.get(name);
    if (v == null) {
      throw new KeysDocumentException("keys document: " + path + " is missing");
    }
    if (!v.isTextual() || v.textValue().isEmpty()) {
      throw new KeysDocumentException(
          "keys document: " + path + " must be a non-empty string, found " + Json.show(v));
    }
    return v.textValue();
  }

  private static Ed25519PublicKeyParameters publicKey(JsonNode k, String path) {
    String text = nonEmptyString(k, "public_key", path);
    byte[] bytes;
    try {
      bytes = Base64Url.decode(text);
    } catch (IllegalArgumentException e) {
      throw new KeysDocumentException(
          "keys document: " + path + " must be unpadded base64url: " + e.getMessage());
    }
    if (bytes.length != Ed25519PublicKeyParameters.KEY_SIZE) {
      throw new KeysDocumentException(
          "keys document: "
              + path
              + " must decode to a 32-byte Ed25519 public key, got "
              + bytes.length
              + " bytes");
    }
    try {
      return new Ed25519PublicKeyParameters(bytes);
    } catch (RuntimeException e) {
      throw new KeysDocumentException(
          "keys document: " + path + " is not a valid Ed25519 public key (not a curve point)", e);
    }
  }

  private static Instant timestamp(JsonNode k, String name, String path, boolean nullable) {
    JsonNode v = k.get(name);
    if (v == null) {
      throw new KeysDocumentException("keys document: " + path + " is missing");
    }
    if (v.isNull() && nullable) {
      return null;
    }
    Instant t = v.isTextual() ? Rfc3339.parse(v.textValue()) : null;
    if (t == null) {
      throw new KeysDocumentException(
          "keys document: "
              + path
              + " must be an RFC 3339 timestamp with offset"
              + (nullable ? " or null" : "")
              + ", found "
              + Json.show(v));
    }
    return t;
  }
}
