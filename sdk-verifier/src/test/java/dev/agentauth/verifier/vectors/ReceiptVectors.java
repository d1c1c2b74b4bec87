package dev.agentauth.verifier.vectors;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.verifier.ReceiptVerifier;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.EdECPrivateKeySpec;
import java.security.spec.NamedParameterSpec;
import java.security.spec.X509EncodedKeySpec;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.provider.Arguments;

/**
 * Reads the committed {@code docs/receipt-vectors.json} (Maven runs the tests in the module
 * directory, so it is {@code ../docs/}) and gives the tests what they need from it.
 */
final class ReceiptVectors {

  static final Path DOCS = Path.of("..", "docs");
  static final Path FILE = DOCS.resolve(GenerateReceiptVectors.FILE_NAME);
  static final Path FORMAT_DOC = DOCS.resolve("receipt-format.md");

  static final ObjectMapper MAPPER = new ObjectMapper();

  private static JsonNode file;
  private static ReceiptVerifier verifier;

  private ReceiptVectors() {}

  static synchronized JsonNode file() {
    if (file == null) {
      try {
        file = MAPPER.readTree(Files.readString(FILE, StandardCharsets.UTF_8));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return file;
  }

  static Clock clock() {
    return Clock.fixed(Instant.parse(file().get("verify_at").textValue()), ZoneOffset.UTC);
  }

  /** A verifier for the vectors' keys document with its clock fixed at {@code verify_at}. */
  static synchronized ReceiptVerifier verifier() {
    if (verifier == null) {
      verifier = ReceiptVerifier.builder().keys(file().get("public_keys")).clock(clock()).build();
    }
    return verifier;
  }

  static List<JsonNode> group(String name) {
    List<JsonNode> out = new ArrayList<>();
    file().get(name).forEach(out::add);
    return out;
  }

  /** The valid and chain-only vectors: every receipt that verifies on its own. */
  static List<JsonNode> verifying() {
    List<JsonNode> out = group("valid");
    out.addAll(group("chain_only"));
    return out;
  }

  static List<Arguments> arguments(List<JsonNode> vectors) {
    List<Arguments> out = new ArrayList<>();
    for (JsonNode v : vectors) {
      out.add(Arguments.of(v.get("name").textValue(), v));
    }
    return out;
  }

  /** Every receipt of the file as JSON text, by vector name. */
  static Map<String, String> receiptTexts() {
    Map<String, String> out = new LinkedHashMap<>();
    for (String group : new String[] {"valid", "chain_only", "invalid"}) {
      for (JsonNode v : file().get(group)) {
        String name = v.get("name").textValue();
        String text =
            v.has("receipt_text") ? v.get("receipt_text").textValue() : json(v.get("receipt"));
        if (out.put(name, text) != null) {
          throw new IllegalStateException("duplicate vector name " + name);
        }
      }
    }
    return out;
  }

  static ObjectNode withoutSignature(JsonNode receipt) {
    ObjectNode copy = (ObjectNode) receipt.deepCopy();
    copy.remove("signature");
    return copy;
  }

  static String json(JsonNode node) {
    try {
      return MAPPER.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The published seed of a key of the vectors' keys document. */
  static byte[] seed(String keyId) {
    JsonNode f = file();
    if (keyId.equals(f.get("key_id").textValue())) {
      return HexFormat.of().parseHex(f.get("key_seed_hex").textValue());
    }
    if (keyId.equals(f.get("retired_key_id").textValue())) {
      return HexFormat.of().parseHex(f.get("retired_key_seed_hex").textValue());
    }
    throw new IllegalArgumentException("no published seed for " + keyId);
  }

  /** The keys document's public key for {@code keyId}, as raw 32 bytes. */
  static byte[] publicKey(String keyId) {
    for (JsonNode k : file().get("public_keys").get("keys")) {
      if (k.get("key_id").textValue().equals(keyId)) {
        return Base64.getUrlDecoder().decode(k.get("public_key").textValue());
      }
    }
    throw new IllegalArgumentException("no key " + keyId);
  }

  // The JDK's own Ed25519 (SunEC), a second implementation beside Bouncy Castle.

  static boolean jdkVerify(byte[] publicKey, byte[] message, byte[] signature) {
    try {
      byte[] spki = HexFormat.of().parseHex("302a300506032b6570032100");
      byte[] encoded = new byte[spki.length + publicKey.length];
      System.arraycopy(spki, 0, encoded, 0, spki.length);
      System.arraycopy(publicKey, 0, encoded, spki.length, publicKey.length);
      PublicKey key =
          KeyFactory.getInstance("Ed25519").generatePublic(new X509EncodedKeySpec(encoded));
      Signature verifier = Signature.getInstance("Ed25519");
      verifier.initVerify(key);
      verifier.update(message);
      return verifier.verify(signature);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  static byte[] jdkSign(byte[] seed, byte[] message) {
    try {
      PrivateKey key =
          KeyFactory.getInstance("Ed25519")
              .generatePrivate(new EdECPrivateKeySpec(NamedParameterSpec.ED25519, seed));
      Signature signer = Signature.getInstance("Ed25519");
      signer.initSign(key);
      signer.update(message);
      return signer.sign();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }
}
