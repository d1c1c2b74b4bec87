package dev.agentauth.verifier.log;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A C2SP signed note, parsed but not verified: its text (non-empty, ending with a newline) and its
 * signature lines ({@code — <key name> <base64(4-byte key hash ‖ signature)>}), which follow the
 * text after one empty line.
 *
 * <p>{@link #parse} is strict and bounded: a note is at most {@value #MAX_NOTE_BYTES} bytes of
 * UTF-8, its text holds no control character other than newline, it carries 1 to {@value
 * #MAX_SIGNATURES} signature lines, each key name is valid (no spaces, no {@code +}) and each
 * base64 value is canonical padded standard base64.
 *
 * @param text the signed text, ending with a newline
 * @param signatures the signature lines in the order they appear
 */
public record SignedNote(String text, List<Signature> signatures) {

  /** Largest note accepted, in bytes of UTF-8 (1 MiB). */
  public static final int MAX_NOTE_BYTES = 1 << 20;

  /** Most signature lines accepted on one note. */
  public static final int MAX_SIGNATURES = 100;

  /**
   * One signature line.
   *
   * @param keyName the key's name
   * @param keyHash the 4-byte key hash (big-endian)
   * @param signature what follows the key hash: the algorithm's signature bytes
   */
  public record Signature(String keyName, int keyHash, byte[] signature) {

    /** Checks the name and copies the bytes. */
    public Signature {
      NoteFormat.requireName(keyName, "signature key name");
      signature = Objects.requireNonNull(signature, "signature").clone();
    }

    @Override
    public byte[] signature() {
      return signature.clone();
    }

    /** The line as it appears in a note, ending with a newline. */
    public String line() {
      byte[] hash = ByteBuffer.allocate(4).putInt(keyHash).array();
      return NoteFormat.SIGNATURE_PREFIX
          + keyName
          + " "
          + NoteFormat.base64(NoteFormat.concat(hash, signature))
          + "\n";
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Signature s
          && keyName.equals(s.keyName)
          && keyHash == s.keyHash
          && java.util.Arrays.equals(signature, s.signature);
    }

    @Override
    public int hashCode() {
      return Objects.hash(keyName, keyHash, java.util.Arrays.hashCode(signature));
    }

    @Override
    public String toString() {
      return keyName + "+" + NoteFormat.hex(keyHash);
    }
  }

  /** Checks the text and copies the list. */
  public SignedNote {
    requireText(text);
    signatures = List.copyOf(signatures);
  }

  /** The whole note: the text, an empty line, then every signature line. */
  public String format() {
    StringBuilder out = new StringBuilder(text).append('\n');
    for (Signature s : signatures) {
      out.append(s.line());
    }
    return out.toString();
  }

  /**
   * Parses a signed note strictly (see the class description).
   *
   * @throws LogVerificationException naming what is malformed
   */
  public static SignedNote parse(String note) {
    Objects.requireNonNull(note, "note");
    if (note.length() > MAX_NOTE_BYTES
        || note.getBytes(StandardCharsets.UTF_8).length > MAX_NOTE_BYTES) {
      throw new LogVerificationException("note is larger than " + MAX_NOTE_BYTES + " bytes");
    }
    int split = note.lastIndexOf("\n\n");
    if (split < 0) {
      throw new LogVerificationException(
          "note has no empty line between its text and its signatures");
    }
    String text = note.substring(0, split + 1);
    String rest = note.substring(split + 2);
    requireText(text);
    if (rest.isEmpty()) {
      throw new LogVerificationException("note has no signature line");
    }
    if (!rest.endsWith("\n")) {
      throw new LogVerificationException("note's last signature line does not end with a newline");
    }
    String[] lines = rest.substring(0, rest.length() - 1).split("\n", -1);
    if (lines.length > MAX_SIGNATURES) {
      throw new LogVerificationException(
          "note has " + lines.length + " signature lines; at most " + MAX_SIGNATURES);
    }
    List<Signature> signatures = new ArrayList<>(lines.length);
    for (int i = 0; i < lines.length; i++) {
      signatures.add(parseLine(lines[i], i + 1));
    }
    return new SignedNote(text, signatures);
  }

  /**
   * Parses one signature line, without its newline.
   *
   * @param line the line, such as {@code — example.com/agentauth/ws_1 AAAA...}
   * @param number its 1-based number, for messages
   */
  static Signature parseLine(String line, int number) {
    String at = "signature line " + number;
    if (!line.startsWith(NoteFormat.SIGNATURE_PREFIX)) {
      throw new LogVerificationException(
          at + " does not start with an em dash (U+2014) and a space: " + NoteFormat.show(line));
    }
    String body = line.substring(NoteFormat.SIGNATURE_PREFIX.length());
    int space = body.indexOf(' ');
    if (space < 0 || body.indexOf(' ', space + 1) >= 0) {
      throw new LogVerificationException(
          at + " must be '— <key name> <base64>': " + NoteFormat.show(line));
    }
    String name = NoteFormat.requireName(body.substring(0, space), at + ": key name");
    byte[] bytes = NoteFormat.base64(body.substring(space + 1), at + ": signature");
    if (bytes.length < 5) {
      throw new LogVerificationException(
          at
              + ": signature must hold a 4-byte key hash and a signature, got "
              + bytes.length
              + " bytes");
    }
    int keyHash = ByteBuffer.wrap(bytes, 0, 4).getInt();
    return new Signature(name, keyHash, NoteFormat.slice(bytes, 4, bytes.length));
  }

  private static void requireText(String text) {
    Objects.requireNonNull(text, "text");
    if (text.isEmpty() || !text.endsWith("\n")) {
      throw new LogVerificationException("note text must be non-empty and end with a newline");
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if ((c < 0x20 && c != '\n') || c == 0x7f) {
        throw new LogVerificationException(
            "note text holds control character U+"
                + String.format("%04X", (int) c)
                + " at offset "
                + i);
      }
      if (Character.isSurrogate(c)) {
        if (!Character.isHighSurrogate(c)
            || i + 1 >= text.length()
            || !Character.isLowSurrogate(text.charAt(i + 1))) {
          throw new LogVerificationException("note text holds an unpaired surrogate at " + i);
        }
        i++;
      }
    }
  }
}
