package dev.agentauth.verifier.log;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;

/**
 * RFC 9162 §2.1 written out literally, as an independent reference for the tests: MTH by its
 * recursive definition, PATH (§2.1.3.1) and PROOF/SUBPROOF (§2.1.4.1). Quadratic and slow on
 * purpose: nothing is shared with the code under test but SHA-256.
 */
public final class NaiveMerkle {

  private NaiveMerkle() {}

  public static byte[] sha256(byte[]... parts) {
    try {
      MessageDigest d = MessageDigest.getInstance("SHA-256");
      for (byte[] p : parts) {
        d.update(p);
      }
      return d.digest();
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  public static byte[] leafHash(byte[] data) {
    return sha256(new byte[] {0}, data);
  }

  public static byte[] nodeHash(byte[] l, byte[] r) {
    return sha256(new byte[] {1}, l, r);
  }

  /** The largest power of two smaller than n (n > 1). */
  public static int k(int n) {
    int k = 1;
    while (k << 1 < n) {
      k <<= 1;
    }
    return k;
  }

  /** MTH(D[n]) over leaf data. */
  public static byte[] mth(List<byte[]> d) {
    int n = d.size();
    if (n == 0) {
      return sha256();
    }
    if (n == 1) {
      return leafHash(d.get(0));
    }
    int k = k(n);
    return nodeHash(mth(d.subList(0, k)), mth(d.subList(k, n)));
  }

  /** PATH(m, D[n]). */
  public static List<byte[]> path(int m, List<byte[]> d) {
    int n = d.size();
    List<byte[]> out = new ArrayList<>();
    if (n <= 1) {
      return out;
    }
    int k = k(n);
    if (m < k) {
      out.addAll(path(m, d.subList(0, k)));
      out.add(mth(d.subList(k, n)));
    } else {
      out.addAll(path(m - k, d.subList(k, n)));
      out.add(mth(d.subList(0, k)));
    }
    return out;
  }

  /** PROOF(m, D[n]) = SUBPROOF(m, D[n], true). */
  public static List<byte[]> proof(int m, List<byte[]> d) {
    return subproof(m, d, true);
  }

  public static List<byte[]> subproof(int m, List<byte[]> d, boolean b) {
    int n = d.size();
    List<byte[]> out = new ArrayList<>();
    if (m == n) {
      if (!b) {
        out.add(mth(d));
      }
      return out;
    }
    int k = k(n);
    if (m <= k) {
      out.addAll(subproof(m, d.subList(0, k), b));
      out.add(mth(d.subList(k, n)));
    } else {
      out.addAll(subproof(m - k, d.subList(k, n), false));
      out.add(mth(d.subList(0, k)));
    }
    return out;
  }

  /** n leaves of distinct data: "leaf i". */
  public static List<byte[]> leaves(int n) {
    List<byte[]> d = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      d.add(("leaf " + i).getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
    return d;
  }
}
