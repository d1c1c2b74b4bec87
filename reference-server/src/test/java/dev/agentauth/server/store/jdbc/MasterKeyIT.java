package dev.agentauth.server.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.server.store.StoreException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The master key that encrypts signing-key seeds at rest, and its key file. */
class MasterKeyIT {
  private static final String AAD = "signing_key:ws_a/01jdq4zk3m0001";

  @TempDir Path dir;

  private static byte[] seed() {
    byte[] seed = new byte[32];
    for (int i = 0; i < seed.length; i++) {
      seed[i] = (byte) (i * 29 + 3);
    }
    seed[0] = 0;
    seed[31] = (byte) 0xff;
    return seed;
  }

  private static byte[] keyBytes(int salt) {
    byte[] raw = new byte[32];
    for (int i = 0; i < raw.length; i++) {
      raw[i] = (byte) (i * 11 + salt);
    }
    return raw;
  }

  /** Whether {@code a} and {@code b} are the same key: each opens what the other sealed. */
  private static void assertSameKey(MasterKey a, MasterKey b) {
    assertThat(b.open(a.seal(seed(), AAD), AAD)).containsExactly(seed());
    assertThat(a.open(b.seal(seed(), AAD), AAD)).containsExactly(seed());
  }

  @Test
  void sealThenOpenRoundTrips() {
    MasterKey key = MasterKey.random();
    byte[] sealed = key.seal(seed(), AAD);
    assertThat(key.open(sealed, AAD)).containsExactly(seed());
    // Randomized: sealing twice gives different bytes, both open.
    byte[] again = key.seal(seed(), AAD);
    assertThat(again).isNotEqualTo(sealed);
    assertThat(key.open(again, AAD)).containsExactly(seed());
    // The plaintext does not appear in the sealed form.
    assertThat(indexOf(sealed, seed())).isNegative();
    // Empty and longer plaintexts work too.
    assertThat(key.open(key.seal(new byte[0], AAD), AAD)).isEmpty();
    byte[] big = new byte[1000];
    Arrays.fill(big, (byte) 7);
    assertThat(key.open(key.seal(big, "other"), "other")).containsExactly(big);
  }

  @Test
  void openWithAnotherAadFails() {
    MasterKey key = MasterKey.random();
    byte[] sealed = key.seal(seed(), AAD);
    assertThatThrownBy(() -> key.open(sealed, "signing_key:ws_a/01jdq4zk3m0002"))
        .isInstanceOf(StoreException.class);
    assertThatThrownBy(() -> key.open(sealed, "")).isInstanceOf(StoreException.class);
  }

  @Test
  void openOfATamperedValueFails() {
    MasterKey key = MasterKey.random();
    byte[] sealed = key.seal(seed(), AAD);
    for (int i = 0; i < sealed.length; i++) {
      byte[] tampered = sealed.clone();
      tampered[i] ^= 0x01;
      assertThatThrownBy(() -> key.open(tampered, AAD))
          .as("byte %d flipped", i)
          .isInstanceOf(StoreException.class);
    }
    assertThatThrownBy(() -> key.open(Arrays.copyOf(sealed, sealed.length - 1), AAD))
        .isInstanceOf(StoreException.class);
    byte[] longer = Arrays.copyOf(sealed, sealed.length + 1);
    assertThatThrownBy(() -> key.open(longer, AAD)).isInstanceOf(StoreException.class);
    assertThatThrownBy(() -> key.open(new byte[0], AAD)).isInstanceOf(StoreException.class);
    assertThatThrownBy(() -> key.open(new byte[5], AAD)).isInstanceOf(StoreException.class);
  }

  @Test
  void openWithAnotherKeyFailsNamingTheMasterKey() {
    byte[] sealed = MasterKey.random().seal(seed(), AAD);
    assertThatThrownBy(() -> MasterKey.random().open(sealed, AAD))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("master key");
  }

  @Test
  void toStringDoesNotRevealTheKey() throws Exception {
    Path file = dir.resolve("k.key");
    byte[] raw = keyBytes(5);
    Files.writeString(file, Base64.getEncoder().encodeToString(raw));
    MasterKey key = MasterKey.fromFile(file);
    assertThat(key.toString())
        .doesNotContain(Base64.getEncoder().encodeToString(raw))
        .doesNotContain(Base64.getEncoder().encodeToString(raw).substring(0, 8));
  }

  @Test
  void fromFileAcceptsBase64TextAndRawBytesOfTheSameKey() throws Exception {
    byte[] raw = keyBytes(1);
    Path text = dir.resolve("text.key");
    Files.writeString(text, Base64.getEncoder().encodeToString(raw) + "\n");
    Path padded = dir.resolve("padded.key");
    Files.writeString(padded, "  " + Base64.getEncoder().encodeToString(raw) + "\r\n\n");
    Path rawFile = dir.resolve("raw.key");
    Files.write(rawFile, raw);
    MasterKey fromText = MasterKey.fromFile(text);
    MasterKey fromPadded = MasterKey.fromFile(padded);
    MasterKey fromRaw = MasterKey.fromFile(rawFile);
    assertSameKey(fromText, fromRaw);
    assertSameKey(fromPadded, fromRaw);
    assertThatThrownBy(() -> MasterKey.random().open(fromRaw.seal(seed(), AAD), AAD))
        .isInstanceOf(StoreException.class);
  }

  @Test
  void fromFileAcceptsUrlSafeBase64() throws Exception {
    byte[] raw = new byte[32];
    Arrays.fill(raw, (byte) 0xfb); // encodes with '+' / '/' in the standard alphabet
    String urlSafe = Base64.getUrlEncoder().encodeToString(raw);
    assertThat(urlSafe).containsAnyOf("-", "_");
    Path url = dir.resolve("url.key");
    Files.writeString(url, urlSafe);
    Path std = dir.resolve("std.key");
    Files.writeString(std, Base64.getEncoder().encodeToString(raw));
    assertSameKey(MasterKey.fromFile(url), MasterKey.fromFile(std));
  }

  @Test
  void fromFileRejectsOtherSizesWithAClearMessage() throws Exception {
    byte[][] wrong = {
      new byte[0],
      new byte[16],
      new byte[31],
      new byte[33],
      new byte[64],
      Base64.getEncoder().encodeToString(new byte[16]).getBytes(StandardCharsets.US_ASCII),
      Base64.getEncoder().encodeToString(new byte[31]).getBytes(StandardCharsets.US_ASCII),
      Base64.getEncoder().encodeToString(new byte[33]).getBytes(StandardCharsets.US_ASCII),
      "not base64 at all!\n".getBytes(StandardCharsets.US_ASCII),
    };
    for (int i = 0; i < wrong.length; i++) {
      Path file = dir.resolve("wrong-" + i + ".key");
      Files.write(file, wrong[i]);
      assertThatThrownBy(() -> MasterKey.fromFile(file))
          .as("content %d (%d bytes)", i, wrong[i].length)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("32 bytes")
          .hasMessageContaining(file.toString());
    }
  }

  @Test
  void fromFileOfAMissingFileFailsNamingIt() {
    Path missing = dir.resolve("missing.key");
    assertThatThrownBy(() -> MasterKey.fromFile(missing)).hasMessageContaining(missing.toString());
  }

  @Test
  void loadOrCreateCreatesAnOwnerOnlyFileThenLoadsTheSameKey() throws Exception {
    Path file = dir.resolve("sub/dir/master.key");
    MasterKey.Loaded first = MasterKey.loadOrCreate(file);
    assertThat(first.created()).isTrue();
    assertThat(file).exists();
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-------");
    String content = Files.readString(file, StandardCharsets.US_ASCII).strip();
    assertThat(Base64.getDecoder().decode(content)).hasSize(32);

    MasterKey.Loaded second = MasterKey.loadOrCreate(file);
    assertThat(second.created()).isFalse();
    assertSameKey(first.key(), second.key());
    assertSameKey(first.key(), MasterKey.fromFile(file));
    assertThat(Files.readString(file, StandardCharsets.US_ASCII).strip()).isEqualTo(content);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-------");
  }

  @Test
  void loadOrCreateUsesAnExistingKeyFile() throws Exception {
    Path file = dir.resolve("existing.key");
    Files.write(file, keyBytes(9));
    MasterKey.Loaded loaded = MasterKey.loadOrCreate(file);
    assertThat(loaded.created()).isFalse();
    assertSameKey(loaded.key(), MasterKey.fromFile(file));
    assertThat(Files.readAllBytes(file)).containsExactly(keyBytes(9));
  }

  @Test
  void twoRandomKeysDiffer() {
    MasterKey a = MasterKey.random();
    MasterKey b = MasterKey.random();
    assertThatThrownBy(() -> b.open(a.seal(seed(), AAD), AAD)).isInstanceOf(StoreException.class);
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
