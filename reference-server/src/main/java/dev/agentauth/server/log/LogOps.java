package dev.agentauth.server.log;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.server.service.ErrorCode;
import dev.agentauth.server.service.ServiceException;
import dev.agentauth.server.store.LogTx;
import dev.agentauth.server.store.Tx;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The log's read operations: entries, inclusion and consistency proofs, and checkpoints. Proofs
 * read the O(log n) stored subtree hashes they need in one query ({@link LogTx#logNodes}).
 */
public final class LogOps {
  /** Entries per page, at most. */
  public static final int MAX_ENTRIES = 1000;

  private static final ObjectMapper JSON = new ObjectMapper();

  /** {@code GET /v1/log/entries}. */
  public record Entries(
      @JsonProperty("tree_size") long treeSize, @JsonProperty("entries") List<Entry> entries) {}

  /** One leaf: its index and the signed receipt. */
  public record Entry(
      @JsonProperty("log_index") long logIndex, @JsonProperty("receipt") JsonNode receipt) {}

  /** {@code GET /v1/log/proof/inclusion}. */
  public record InclusionProof(
      @JsonProperty("log_index") long logIndex,
      @JsonProperty("tree_size") long treeSize,
      @JsonProperty("hashes") List<String> hashes) {}

  /** {@code GET /v1/log/proof/consistency}. */
  public record ConsistencyProof(
      @JsonProperty("from") long from,
      @JsonProperty("to") long to,
      @JsonProperty("hashes") List<String> hashes) {}

  /**
   * A query parameter as a long of at least {@code min}; null when absent.
   *
   * @throws ServiceException 400 naming {@code name} when it is not such a number
   */
  public static Long longParam(String name, String raw, long min) {
    if (raw == null) {
      return null;
    }
    try {
      long v = Long.parseLong(raw);
      if (v >= min && raw.equals(Long.toString(v))) {
        return v;
      }
    } catch (NumberFormatException e) {
      // fall through
    }
    throw ServiceException.invalid(
        name, "must be an integer of at least " + min + ", got \"" + shorten(raw) + "\"");
  }

  private static String shorten(String raw) {
    return raw.length() > 40 ? raw.substring(0, 40) + "…" : raw;
  }

  private static List<String> base64(List<byte[]> hashes) {
    List<String> out = new ArrayList<>(hashes.size());
    for (byte[] h : hashes) {
      out.add(Base64.getEncoder().encodeToString(h));
    }
    return out;
  }

  public Entries entries(Tx tx, String workspaceId, long start, int limit) {
    long size = tx.logSize(workspaceId);
    List<Entry> out = new ArrayList<>();
    if (start < size) {
      int n = (int) Math.min(limit, size - start);
      for (LogTx.Entry e : tx.logEntries(workspaceId, start, n)) {
        if (e.index() >= size) {
          break;
        }
        out.add(new Entry(e.index(), parse(e.receipt().signedJson())));
      }
    }
    return new Entries(size, out);
  }

  private static JsonNode parse(String json) {
    try {
      return JSON.readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException("stored receipt is unreadable", e);
    }
  }

  public InclusionProof inclusion(Tx tx, String workspaceId, String receiptId, Long treeSize) {
    long size = tx.logSize(workspaceId);
    long s = treeSize == null ? size : treeSize;
    if (treeSize != null && treeSize > size) {
      throw ServiceException.invalid(
          "tree_size", "must be at most the log's size, " + size + ", got " + treeSize);
    }
    if (s < 1) {
      throw ServiceException.of(
          ErrorCode.NOT_FOUND, "the log of this workspace is empty: no receipt is in it yet");
    }
    OptionalLong index = tx.logIndex(workspaceId, receiptId);
    if (index.isEmpty() || index.getAsLong() >= s) {
      throw ServiceException.of(
          ErrorCode.NOT_FOUND,
          "receipt "
              + shorten(receiptId)
              + " is not among the first "
              + s
              + " leaves of the log (unknown, not signed, or not integrated yet)");
    }
    List<LogTree.Range> ranges = LogTree.inclusion(index.getAsLong(), s);
    Map<LogTx.NodeId, byte[]> nodes = tx.logNodes(workspaceId, LogTree.needed(ranges));
    return new InclusionProof(index.getAsLong(), s, base64(LogTree.hashes(ranges, nodes)));
  }

  public ConsistencyProof consistency(Tx tx, String workspaceId, long from, long to) {
    long size = tx.logSize(workspaceId);
    if (to > size) {
      throw ServiceException.invalid(
          "to", "must be at most the log's size, " + size + ", got " + to);
    }
    if (from > to) {
      throw ServiceException.invalid("from", "must be at most to (" + to + "), got " + from);
    }
    List<LogTree.Range> ranges = LogTree.consistency(from, to);
    Map<LogTx.NodeId, byte[]> nodes = tx.logNodes(workspaceId, LogTree.needed(ranges));
    return new ConsistencyProof(from, to, base64(LogTree.hashes(ranges, nodes)));
  }

  /**
   * The checkpoint note of {@code workspaceId} followed by its accepted cosignature lines: the
   * newest, the one of {@code treeSize}, or the newest cosigned by at least {@code cosigned} of the
   * workspace's witnesses.
   */
  public String checkpoint(Tx tx, String workspaceId, Long treeSize, Integer cosigned) {
    if (tx.workspace(workspaceId).isEmpty()) {
      throw ServiceException.notFound("workspace");
    }
    LogTx.Checkpoint c;
    if (treeSize != null) {
      c =
          tx.checkpoint(workspaceId, treeSize)
              .orElseThrow(
                  () ->
                      ServiceException.of(
                          ErrorCode.NOT_FOUND,
                          "no checkpoint of tree size " + treeSize + " was issued by this log"));
    } else if (cosigned != null) {
      List<String> witnesses = new ArrayList<>();
      for (String vkey : tx.logWitnesses(workspaceId)) {
        witnesses.add(Witnesses.id(vkey));
      }
      OptionalLong size = tx.newestCosignedSize(workspaceId, witnesses, cosigned);
      c = size.isEmpty() ? null : tx.checkpoint(workspaceId, size.getAsLong()).orElse(null);
      if (c == null) {
        throw ServiceException.of(
            ErrorCode.NOT_FOUND,
            "no checkpoint holds cosignatures of at least "
                + cosigned
                + " of this workspace's "
                + witnesses.size()
                + " witnesses");
      }
    } else {
      c =
          tx.latestCheckpoint(workspaceId)
              .orElseThrow(
                  () ->
                      ServiceException.of(
                          ErrorCode.NOT_FOUND,
                          "this workspace's log is empty: no checkpoint was issued yet (one is"
                              + " issued within a second of its first signed receipt)"));
    }
    StringBuilder out = new StringBuilder(c.note());
    for (LogTx.Cosignature s : tx.cosignatures(workspaceId, c.treeSize())) {
      out.append(s.line()).append('\n');
    }
    return out.toString();
  }
}
