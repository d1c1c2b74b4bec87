package dev.agentauth.verifier.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Small files the log commands keep: state files and key files, written with mode 0600 (on file
 * systems with POSIX permissions) and replaced atomically; key files refused when group or others
 * may read them.
 */
final class SecretFiles {

  /** Larger than any state or key file: something else. */
  static final int MAX_BYTES = 1 << 20;

  private static final Set<PosixFilePermission> OWNER_ONLY =
      PosixFilePermissions.fromString("rw-------");

  private SecretFiles() {}

  /** Reads a small UTF-8 file, or returns {@code null} when it does not exist. */
  static String readIfExists(Path file, String what) throws InputException {
    if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS) && !Files.exists(file)) {
      return null;
    }
    return read(file, what);
  }

  /** Reads a small UTF-8 file. */
  static String read(Path file, String what) throws InputException {
    try {
      if (Files.size(file) > MAX_BYTES) {
        throw new InputException(what + " " + file + " is larger than " + MAX_BYTES + " bytes");
      }
      return ReceiptInputs.decode(what + " " + file, Files.readAllBytes(file));
    } catch (IOException e) {
      throw new InputException("cannot read " + what + " " + file + ": " + e.getMessage());
    }
  }

  /**
   * Reads a key file, refusing one that group or others may read or write (where the file system
   * has POSIX permissions).
   */
  static String readPrivate(Path file, String what) throws InputException {
    try {
      Set<PosixFilePermission> perms = Files.getPosixFilePermissions(file);
      for (PosixFilePermission p : perms) {
        if (!p.name().startsWith("OWNER_")) {
          throw new InputException(
              what
                  + " "
                  + file
                  + " is readable or writable by group or others ("
                  + PosixFilePermissions.toString(perms)
                  + "): refused; run chmod 600 "
                  + file);
        }
      }
    } catch (UnsupportedOperationException e) {
      // No POSIX permissions here (Windows): nothing to check.
    } catch (IOException e) {
      throw new InputException("cannot read " + what + " " + file + ": " + e.getMessage());
    }
    return read(file, what);
  }

  /**
   * Writes {@code text} to {@code file} through a temporary file and an atomic rename, mode 0600.
   */
  static void replace(Path file, String text, String what) throws InputException {
    Path dir = file.toAbsolutePath().getParent();
    Path temp = null;
    try {
      temp = Files.createTempFile(dir, "." + file.getFileName() + ".", ".tmp");
      setOwnerOnly(temp);
      Files.writeString(temp, text, StandardCharsets.UTF_8);
      try {
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
      }
      temp = null;
    } catch (IOException e) {
      throw new InputException("cannot write " + what + " " + file + ": " + e.getMessage());
    } finally {
      if (temp != null) {
        try {
          Files.deleteIfExists(temp);
        } catch (IOException e) {
          // Left behind: harmless.
        }
      }
    }
  }

  /** Creates a new file holding {@code text}, mode 0600; refuses to overwrite one. */
  static void createNew(Path file, String text, String what) throws InputException {
    try {
      try {
        Files.createFile(file, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
      } catch (UnsupportedOperationException e) {
        Files.createFile(file);
      }
      Files.writeString(file, text, StandardCharsets.UTF_8);
    } catch (FileAlreadyExistsException e) {
      throw new InputException(what + " " + file + " already exists: refused to overwrite it");
    } catch (IOException e) {
      throw new InputException("cannot write " + what + " " + file + ": " + e.getMessage());
    }
  }

  private static void setOwnerOnly(Path file) throws IOException {
    try {
      Files.setPosixFilePermissions(file, OWNER_ONLY);
    } catch (UnsupportedOperationException e) {
      // No POSIX permissions here.
    }
  }
}
