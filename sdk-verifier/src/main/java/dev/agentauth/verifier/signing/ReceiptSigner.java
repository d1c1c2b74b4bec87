package dev.agentauth.verifier.signing;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.verifier.CanonicalizationException;
import dev.agentauth.verifier.Canonicalizer;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Objects;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.math.ec.rfc8032.Ed25519;

/**
 * Signs receipts with one Ed25519 key (RFC 8032, pure Ed25519, no pre-hash), using Bouncy Castle's
 * implementation.
 *
 * <pre>{@code
 * ReceiptSigner signer = ReceiptSigner.fromSeed("ws_acme/2026-11", seed32);
 * ObjectNode signed = signer.sign(unsignedReceipt);   // adds "signature": {alg, key_id, value}
 * }</pre>
 *
 * <p>The signature covers {@link Canonicalizer#signingPayload(ObjectNode)}, the same bytes {@link
 * dev.agentauth.verifier.ReceiptVerifier} checks. The signer does not check the receipt's schema:
 * that is the issuer's job, and the verifier's.
 *
 * <p>Instances are immutable and thread-safe. {@link #toString()} never shows the private key.
 */
public final class ReceiptSigner {

  /** The only {@code signature.alg} value. */
  private static final String ALG = "Ed25519";

  private static final int SEED_BYTES = Ed25519PrivateKeyParameters.KEY_SIZE;
  private static final Base64.Encoder BASE64URL = Base64.getUrlEncoder().withoutPadding();

  private final String keyId;
  private final Ed25519PrivateKeyParameters privateKey;
  private final Ed25519PublicKeyParameters publicKey;
  private final byte[] publicKeyBytes;

  private ReceiptSigner(String keyId, Ed25519PrivateKeyParameters privateKey) {
    this.keyId = keyId;
    this.privateKey = privateKey;
    this.publicKey = privateKey.generatePublicKey();
    this.publicKeyBytes = publicKey.getEncoded();
  }

  /**
   * Creates a signer from a 32-byte Ed25519 private key seed (the RFC 8032 secret key).
   *
   * @param keyId the {@code key_id} published in the keys document; non-empty
   * @param seed the 32-byte seed; copied, so the caller may wipe its array afterwards
   * @return the signer
   * @throws IllegalArgumentException if {@code keyId} is empty or {@code seed} is not 32 bytes
   * @throws NullPointerException if an argument is null
   */
  public static ReceiptSigner fromSeed(String keyId, byte[] seed) {
    checkKeyId(keyId);
    Objects.requireNonNull(seed, "seed");
    if (seed.length != SEED_BYTES) {
      throw new IllegalArgumentException(
          "Ed25519 seed must be " + SEED_BYTES + " bytes, was " + seed.length);
    }
    return new ReceiptSigner(keyId, new Ed25519PrivateKeyParameters(seed, 0));
  }

  /**
   * Creates a signer with a fresh random key.
   *
   * @param keyId the {@code key_id} to publish the key under; non-empty
   * @param random the source of the 32-byte seed
   * @return the signer
   * @throws IllegalArgumentException if {@code keyId} is empty
   * @throws NullPointerException if an argument is null
   */
  public static ReceiptSigner generate(String keyId, SecureRandom random) {
    checkKeyId(keyId);
    Objects.requireNonNull(random, "random");
    return new ReceiptSigner(keyId, new Ed25519PrivateKeyParameters(random));
  }

  private static void checkKeyId(String keyId) {
    Objects.requireNonNull(keyId, "keyId");
    if (keyId.isEmpty()) {
      throw new IllegalArgumentException("keyId must not be empty");
    }
  }

  /**
   * Returns the {@code key_id} this signer writes into signatures.
   *
   * @return the key id
   */
  public String keyId() {
    return keyId;
  }

  /**
   * Returns the 32-byte Ed25519 public key.
   *
   * @return a fresh copy of the encoded public key
   */
  public byte[] publicKey() {
    return publicKeyBytes.clone();
  }

  /**
   * Returns the public key as the keys document publishes it: unpadded base64url.
   *
   * @return the {@code public_key} value
   */
  public String publicKeyBase64Url() {
    return BASE64URL.encodeToString(publicKeyBytes);
  }

  /**
   * Signs raw bytes.
   *
   * @param message the bytes to sign
   * @return the 64-byte Ed25519 signature
   * @throws NullPointerException if {@code message} is null
   */
  public byte[] sign(byte[] message) {
    Objects.requireNonNull(message, "message");
    byte[] signature = new byte[Ed25519.SIGNATURE_SIZE];
    // The private key caches its public key, so this does not re-derive it per call.
    privateKey.sign(Ed25519.Algorithm.Ed25519, null, message, 0, message.length, signature, 0);
    return signature;
  }

  /**
   * Signs raw bytes and returns the signature as a receipt's {@code signature.value}.
   *
   * @param message the bytes to sign
   * @return the signature, unpadded base64url (86 characters)
   * @throws NullPointerException if {@code message} is null
   */
  public String signatureValue(byte[] message) {
    return BASE64URL.encodeToString(sign(message));
  }

  /**
   * Returns a signed copy of a receipt: {@code unsignedReceipt} plus a last member {@code
   * "signature": {"alg": "Ed25519", "key_id": ..., "value": ...}} over its signing payload. Any
   * existing {@code signature} member is replaced. The argument is not modified.
   *
   * @param unsignedReceipt the receipt without (or with a stale) {@code signature}
   * @return a new, signed receipt object
   * @throws CanonicalizationException if the receipt holds a value with no canonical form (a
   *     non-integer or unsafe number, a lone surrogate)
   * @throws NullPointerException if {@code unsignedReceipt} is null
   */
  public ObjectNode sign(ObjectNode unsignedReceipt) {
    byte[] payload = Canonicalizer.signingPayload(unsignedReceipt);
    String value = signatureValue(payload);
    ObjectNode signed = unsignedReceipt.deepCopy();
    signed.remove("signature");
    ObjectNode signature = signed.putObject("signature");
    signature.put("alg", ALG);
    signature.put("key_id", keyId);
    signature.put("value", value);
    return signed;
  }

  @Override
  public String toString() {
    return "ReceiptSigner{key_id=" + keyId + ", public_key=" + publicKeyBase64Url() + "}";
  }
}
