package dev.agentauth.server.log;

import dev.agentauth.server.store.LogTx.Node;
import dev.agentauth.server.store.LogTx.NodeId;
import dev.agentauth.verifier.log.LogHash;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The Merkle tree arithmetic of RFC 9162 §2.1 over stored perfect subtrees: which subtrees make up
 * any range of leaves the RFC's recursion visits, the subtrees a batch of new leaves completes, and
 * the ranges whose hashes form an inclusion proof (PATH, §2.1.3.1) or a consistency proof (PROOF /
 * SUBPROOF, §2.1.4.1). Every range the recursion visits starts at a multiple of the largest power
 * of two not above its size, so it is the concatenation of at most 64 perfect subtrees, largest
 * first, and its hash is their right fold: {@code node(p1, node(p2, … pk))}.
 */
public final class LogTree {
  private LogTree() {}

  /** Leaves {@code [start, end)}. */
  public record Range(long start, long end) {}

  /** The perfect subtrees {@code [start, end)} consists of, left to right. */
  public static List<NodeId> decompose(long start, long end) {
    List<NodeId> out = new ArrayList<>();
    long s = start;
    while (s < end) {
      int level = 63 - Long.numberOfLeadingZeros(end - s);
      // the largest aligned power of two that fits
      while (level > 0 && (s & ((1L << level) - 1)) != 0) {
        level--;
      }
      out.add(new NodeId(level, s >>> level));
      s += 1L << level;
    }
    return out;
  }

  /** The nodes every range of {@code ranges} needs, without repeats. */
  public static Set<NodeId> needed(List<Range> ranges) {
    Set<NodeId> out = new LinkedHashSet<>();
    for (Range r : ranges) {
      out.addAll(decompose(r.start(), r.end()));
    }
    return out;
  }

  /**
   * The hash of {@code r} from stored subtree hashes.
   *
   * @throws IllegalStateException if a subtree it needs is missing from {@code nodes}
   */
  public static byte[] hash(Range r, Map<NodeId, byte[]> nodes) {
    if (r.start() == r.end()) {
      return LogHash.emptyRoot();
    }
    List<NodeId> parts = decompose(r.start(), r.end());
    byte[] acc = null;
    for (int i = parts.size() - 1; i >= 0; i--) {
      byte[] h = nodes.get(parts.get(i));
      if (h == null) {
        throw new IllegalStateException("log node " + parts.get(i) + " is not stored");
      }
      acc = acc == null ? h : LogHash.node(h, acc);
    }
    return acc;
  }

  /** The hashes of {@code ranges}, in order. */
  public static List<byte[]> hashes(List<Range> ranges, Map<NodeId, byte[]> nodes) {
    List<byte[]> out = new ArrayList<>(ranges.size());
    for (Range r : ranges) {
      out.add(hash(r, nodes));
    }
    return out;
  }

  /** The largest power of two smaller than {@code n} (n ≥ 2). */
  private static long split(long n) {
    return Long.highestOneBit(n - 1);
  }

  /** The ranges whose hashes are the inclusion proof of leaf {@code m} in a tree of {@code n}. */
  public static List<Range> inclusion(long m, long n) {
    if (m < 0 || m >= n) {
      throw new IllegalArgumentException("leaf " + m + " is not in a tree of " + n);
    }
    List<Range> out = new ArrayList<>();
    path(m, 0, n, out);
    return out;
  }

  private static void path(long m, long start, long end, List<Range> out) {
    long n = end - start;
    if (n == 1) {
      return;
    }
    long k = split(n);
    if (m - start < k) {
      path(m, start, start + k, out);
      out.add(new Range(start + k, end));
    } else {
      path(m, start + k, end, out);
      out.add(new Range(start, start + k));
    }
  }

  /** The ranges whose hashes are the consistency proof from size {@code m} to {@code n}. */
  public static List<Range> consistency(long m, long n) {
    if (m < 1 || m > n) {
      throw new IllegalArgumentException("no consistency proof from " + m + " to " + n);
    }
    List<Range> out = new ArrayList<>();
    if (m < n) {
      subproof(m, 0, n, true, out);
    }
    return out;
  }

  private static void subproof(long m, long start, long end, boolean b, List<Range> out) {
    long n = end - start;
    if (m == n) {
      if (!b) {
        out.add(new Range(start, end));
      }
      return;
    }
    long k = split(n);
    if (m <= k) {
      subproof(m, start, start + k, b, out);
      out.add(new Range(start + k, end));
    } else {
      subproof(m - k, start + k, end, false, out);
      out.add(new Range(start, start + k));
    }
  }

  /**
   * The perfect subtrees that appending {@code leafHashes} to a tree of {@code size} leaves
   * completes, leaves included, level by level.
   *
   * @param frontier the hashes of {@link #decompose decompose(0, size)} (at least)
   */
  public static List<Node> appended(
      long size, List<byte[]> leafHashes, Map<NodeId, byte[]> frontier) {
    Map<NodeId, byte[]> known = new HashMap<>(frontier);
    List<Node> out = new ArrayList<>();
    long end = size + leafHashes.size();
    for (int i = 0; i < leafHashes.size(); i++) {
      NodeId id = new NodeId(0, size + i);
      known.put(id, leafHashes.get(i));
      out.add(new Node(id, leafHashes.get(i)));
    }
    for (int level = 1; level < 63 && (end >>> level) > 0; level++) {
      for (long i = size >>> level; i < end >>> level; i++) {
        byte[] left = known.get(new NodeId(level - 1, 2 * i));
        byte[] right = known.get(new NodeId(level - 1, 2 * i + 1));
        if (left == null || right == null) {
          throw new IllegalStateException(
              "log node " + new NodeId(level - 1, left == null ? 2 * i : 2 * i + 1) + " missing");
        }
        byte[] h = LogHash.node(left, right);
        NodeId id = new NodeId(level, i);
        known.put(id, h);
        out.add(new Node(id, h));
      }
    }
    return out;
  }
}
