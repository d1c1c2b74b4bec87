package dev.agentauth.verifier.log;

import java.util.Arrays;
import java.util.Objects;

/**
 * A receipt log checkpoint (C2SP tlog-checkpoint): the log's origin, its size and its root hash.
 * Its body, the text a log signs, is {@code <origin>\n<tree size>\n<base64 root hash>\n}.
 *
 * <p>{@link #parseBody} accepts exactly those three lines: C2SP allows extension lines after the
 * root hash, but the agentauth log writes none, so a body with a fourth line is rejected rather
 * than partly understood.
 *
 * @param origin the log's name, {@code <public host>/agentauth/<workspace id>}
 * @param treeSize the number of leaves
 * @param rootHash the 32-byte root hash
 */
public record Checkpoint(String origin, long treeSize, byte[] rootHash) {

  /** Checks every member and copies the hash. */
  public Checkpoint {
    NoteFormat.requireName(origin, "checkpoint origin");
    if (treeSize < 0) {
      throw new LogVerificationException("checkpoint tree size is negative: " + treeSize);
    }
    Objects.requireNonNull(rootHash, "rootHash");
    if (rootHash.length != LogHash.SIZE) {
      throw new LogVerificationException(
          "checkpoint root hash must be " + LogHash.SIZE + " bytes, got " + rootHash.length);
    }
    rootHash = rootHash.clone();
  }

  /**
   * The origin of a workspace's log.
   *
   * @param publicHost the host, with {@code :port} when not the scheme's default, of the server's
   *     public URL; no scheme
   * @param workspaceId the workspace's id
   */
  public static String origin(String publicHost, String workspaceId) {
    return NoteFormat.requireName(publicHost + "/agentauth/" + workspaceId, "checkpoint origin");
  }

  @Override
  public byte[] rootHash() {
    return rootHash.clone();
  }

  /** The body the log signs: origin, tree size and base64 root hash, one per line. */
  public String body() {
    return origin + "\n" + treeSize + "\n" + NoteFormat.base64(rootHash) + "\n";
  }

  /**
   * Parses a checkpoint body strictly: three lines, each ending with a newline; a valid origin; a
   * decimal size without sign or leading zero; a 32-byte root in canonical padded base64.
   *
   * @throws LogVerificationException naming what is malformed
   */
  public static Checkpoint parseBody(String body) {
    Objects.requireNonNull(body, "body");
    if (body.length() > 4096) {
      throw new LogVerificationException("checkpoint body is longer than 4096 characters");
    }
    if (!body.endsWith("\n")) {
      throw new LogVerificationException("checkpoint body does not end with a newline");
    }
    String[] lines = body.substring(0, body.length() - 1).split("\n", -1);
    if (lines.length != 3) {
      throw new LogVerificationException(
          "checkpoint body must have exactly 3 lines (origin, tree size, root hash), found "
              + lines.length);
    }
    String origin = NoteFormat.requireName(lines[0], "checkpoint origin");
    String size = lines[1];
    if (size.isEmpty()
        || size.length() > 19
        || !size.chars().allMatch(c -> c >= '0' && c <= '9')
        || (size.length() > 1 && size.charAt(0) == '0')) {
      throw new LogVerificationException(
          "checkpoint tree size must be a decimal number without leading zeros: "
              + NoteFormat.show(size));
    }
    long treeSize;
    try {
      treeSize = Long.parseLong(size);
    } catch (NumberFormatException e) {
      throw new LogVerificationException("checkpoint tree size is too large: " + size);
    }
    byte[] root = NoteFormat.base64(lines[2], "checkpoint root hash");
    return new Checkpoint(origin, treeSize, root);
  }

  /** The root hash in base64, for messages. */
  public String rootBase64() {
    return NoteFormat.base64(rootHash);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Checkpoint c
        && origin.equals(c.origin)
        && treeSize == c.treeSize
        && Arrays.equals(rootHash, c.rootHash);
  }

  @Override
  public int hashCode() {
    return Objects.hash(origin, treeSize, Arrays.hashCode(rootHash));
  }

  @Override
  public String toString() {
    return "Checkpoint[" + origin + ", size " + treeSize + ", root " + rootBase64() + "]";
  }
}
