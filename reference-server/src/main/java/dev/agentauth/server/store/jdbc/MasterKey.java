package dev.agentauth.server.store.jdbc;

import dev.agentauth.server.store.StoreException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The 256-bit key that encrypts workspace signing keys at rest (AES-256-GCM). A sealed value is
 * {@code 0x01 || 12-byte random nonce || ciphertext || 16-byte tag}; the additional authenticated
 * data binds it to its row (the key id), so a sealed seed copied to another row does not open.
 *
 * <p>A key file holds the 32 key bytes either raw or as base64 text (standard or URL alphabet,
 * surrounding whitespace ignored).
 */
public final class MasterKey {
  private static final int KEY_BYTES = 32;
  private static final int NONCE_BYTES = 12;
  private static final int TAG_BITS = 128;
  private static final byte VERSION = 1;
  private static final SecureRandom RANDOM = new SecureRandom();

  private final SecretKeySpec key;

  private MasterKey(byte[] raw) {
    if (raw.length != KEY_BYTES) {
      throw new IllegalArgumentException(
          "a master key is " + KEY_BYTES + " bytes, got " + raw.length);
    }
    this.key = new SecretKeySpec(raw, "AES");
  }

  /** A fresh random key (for tests and embedding). */
  public static MasterKey random() {
    byte[] raw = new byte[KEY_BYTES];
    RANDOM.nextBytes(raw);
    return new MasterKey(raw);
  }

  /**
   * Reads a key file: 32 raw bytes or their base64 text.
   *
   * @throws IllegalArgumentException if the file does not hold 32 key bytes
   * @throws UncheckedIOException if it cannot be read
   */
  public static MasterKey fromFile(Path file) {
    byte[] content;
    try {
      content = Files.readAllBytes(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read master key file " + file + ": " + e, e);
    }
    if (content.length == KEY_BYTES) {
      return new MasterKey(content);
    }
    String text = new String(content, StandardCharsets.US_ASCII).strip();
    byte[] decoded;
    try {
      decoded =
          text.indexOf('-') >= 0 || text.indexOf('_') >= 0
              ? Base64.getUrlDecoder().decode(text)
              : Base64.getDecoder().decode(text);
    } catch (IllegalArgumentException e) {
      decoded = new byte[0];
    }
    if (decoded.length != KEY_BYTES) {
      throw new IllegalArgumentException(
          "master key file "
              + file
              + " must hold 32 bytes, raw or base64-encoded (e.g. `head -c 32 /dev/urandom | base64`)");
    }
    return new MasterKey(decoded);
  }

  /**
   * Loads the key file, first creating it with a fresh key, readable and writable by the owner
   * only, when it does not exist.
   *
   * @return the key and whether this call created the file
   */
  public static Loaded loadOrCreate(Path file) {
    if (!Files.exists(file)) {
      byte[] raw = new byte[KEY_BYTES];
      RANDOM.nextBytes(raw);
      String text = Base64.getEncoder().encodeToString(raw) + "\n";
      try {
        createPrivateDirectories(file.toAbsolutePath().getParent());
        try {
          Files.createFile(
              file,
              PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (UnsupportedOperationException e) {
          Files.createFile(file); // not a POSIX file system
        }
        Files.writeString(file, text, StandardCharsets.US_ASCII, StandardOpenOption.WRITE);
        return new Loaded(new MasterKey(raw), true);
      } catch (FileAlreadyExistsException e) {
        // Another process created it first: use theirs.
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create master key file " + file + ": " + e, e);
      }
    }
    return new Loaded(fromFile(file), false);
  }

  /** Creates {@code dir} and its missing parents, readable by the owner only, if absent. */
  static void createPrivateDirectories(Path dir) throws IOException {
    if (dir == null || Files.isDirectory(dir)) {
      return;
    }
    try {
      Files.createDirectories(
          dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    } catch (UnsupportedOperationException e) {
      Files.createDirectories(dir); // not a POSIX file system
    }
  }

  /** A key and whether it was just generated. */
  public record Loaded(MasterKey key, boolean created) {}

  /** Encrypts {@code plaintext} bound to {@code aad}. */
  public byte[] seal(byte[] plaintext, String aad) {
    byte[] nonce = new byte[NONCE_BYTES];
    RANDOM.nextBytes(nonce);
    try {
      Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
      c.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce));
      c.updateAAD(aad.getBytes(StandardCharsets.UTF_8));
      byte[] ct = c.doFinal(plaintext);
      return ByteBuffer.allocate(1 + NONCE_BYTES + ct.length)
          .put(VERSION)
          .put(nonce)
          .put(ct)
          .array();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM is not available", e);
    }
  }

  /**
   * Decrypts a value from {@link #seal} with the same {@code aad}.
   *
   * @throws StoreException if it was sealed under another key or aad, or was altered
   */
  public byte[] open(byte[] sealed, String aad) {
    if (sealed.length < 1 + NONCE_BYTES + TAG_BITS / 8 || sealed[0] != VERSION) {
      throw new StoreException("sealed value is malformed (" + aad + ")");
    }
    try {
      Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
      c.init(
          Cipher.DECRYPT_MODE,
          key,
          new GCMParameterSpec(TAG_BITS, Arrays.copyOfRange(sealed, 1, 1 + NONCE_BYTES)));
      c.updateAAD(aad.getBytes(StandardCharsets.UTF_8));
      return c.doFinal(sealed, 1 + NONCE_BYTES, sealed.length - 1 - NONCE_BYTES);
    } catch (javax.crypto.AEADBadTagException e) {
      throw new StoreException(
          "cannot decrypt " + aad + ": the master key is not the one it was encrypted with", e);
    } catch (GeneralSecurityException e) {
      throw new StoreException("cannot decrypt " + aad, e);
    }
  }

  @Override
  public String toString() {
    return "MasterKey[hidden]";
  }
}
