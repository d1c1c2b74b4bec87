package dev.agentauth.server.log;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.agentauth.server.service.ServiceException;
import dev.agentauth.server.store.LogTx;
import dev.agentauth.server.store.Store;
import dev.agentauth.server.store.Tx;
import dev.agentauth.verifier.log.Checkpoint;
import dev.agentauth.verifier.log.LogVerificationException;
import dev.agentauth.verifier.log.SignedNote;
import dev.agentauth.verifier.log.WitnessKey;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A workspace's log witnesses (C2SP tlog-cosignature v1 keys) and the cosignatures they send. A
 * cosignature is accepted only over a checkpoint this log issued (same origin, size and root) and
 * only when it verifies under a witness key configured for the workspace; each request verifies at
 * most {@link #MAX_LINES} signature lines.
 */
public final class Witnesses {
  /** Witness keys per workspace, at most. */
  public static final int MAX = 16;

  /** Signature lines per cosignature request, at most (the log's own line included). */
  public static final int MAX_LINES = 16;

  /** {@code PUT /v1/log/witnesses}. */
  public record Request(@JsonProperty("witnesses") List<String> witnesses) {}

  /** A workspace's witness keys. */
  public record WitnessList(@JsonProperty("witnesses") List<String> witnesses) {}

  /** {@code POST /v1/workspaces/{id}/log/cosignatures}: how many cosignatures verified. */
  public record Accepted(@JsonProperty("accepted") int accepted) {}

  private final Store store;
  private final CheckpointSigner signer;
  private final Clock clock;

  public Witnesses(Store store, CheckpointSigner signer, Clock clock) {
    this.store = store;
    this.signer = signer;
    this.clock = clock;
  }

  /** A witness's identity as cosignatures are stored under it: {@code <name>+<8 hex digits>}. */
  static String id(WitnessKey k) {
    return k.name() + "+" + String.format("%08x", k.keyHash());
  }

  /** {@link #id(WitnessKey)} of a stored (valid) vkey. */
  static String id(String vkey) {
    // <name>+<8 hex>+<base64>: the base64 key may hold '+' itself, the name never does.
    return vkey.substring(0, vkey.indexOf('+') + 9);
  }

  /**
   * The vkeys of {@code r}, checked: present, at most {@link #MAX}, each a valid vkey, names
   * unique.
   */
  public List<String> validate(Request r) {
    if (r.witnesses() == null) {
      throw ServiceException.invalid("witnesses", "is required (an empty list removes every one)");
    }
    if (r.witnesses().size() > MAX) {
      throw ServiceException.invalid(
          "witnesses", "at most " + MAX + " witnesses, got " + r.witnesses().size());
    }
    Set<String> names = new HashSet<>();
    List<String> out = new ArrayList<>();
    for (int i = 0; i < r.witnesses().size(); i++) {
      String field = "witnesses[" + i + "]";
      String vkey = r.witnesses().get(i);
      if (vkey == null) {
        throw ServiceException.invalid(field, "must be a vkey, not null");
      }
      WitnessKey k;
      try {
        k = WitnessKey.parseVkey(vkey);
      } catch (LogVerificationException e) {
        throw ServiceException.invalid(field, e.getMessage());
      }
      if (!names.add(k.name())) {
        throw ServiceException.invalid(field, "names witness " + k.name() + " a second time");
      }
      out.add(k.vkey());
    }
    return out;
  }

  public WitnessList list(Tx tx, String workspaceId) {
    return new WitnessList(tx.logWitnesses(workspaceId));
  }

  public WitnessList set(Tx tx, String workspaceId, List<String> vkeys) {
    tx.setLogWitnesses(workspaceId, vkeys);
    return new WitnessList(vkeys);
  }

  private static ServiceException bad(String detail) {
    return ServiceException.invalid("body", detail);
  }

  /** Verifies and stores the cosignatures of {@code body} (see the class description). */
  public Accepted accept(String workspaceId, byte[] body) {
    String text;
    try {
      text =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(body))
              .toString();
    } catch (CharacterCodingException e) {
      throw bad("is not UTF-8");
    }
    SignedNote note;
    Checkpoint checkpoint;
    try {
      note = SignedNote.parse(text);
      checkpoint = Checkpoint.parseBody(note.text());
    } catch (LogVerificationException e) {
      throw bad("is not a checkpoint note with cosignature lines: " + e.getMessage());
    }
    if (note.signatures().size() > MAX_LINES) {
      throw bad(
          "holds "
              + note.signatures().size()
              + " signature lines; at most "
              + MAX_LINES
              + " are accepted per request");
    }
    String origin = signer.origin(workspaceId);
    if (!checkpoint.origin().equals(origin)) {
      throw bad("the checkpoint's origin is not this log's (" + origin + ")");
    }
    record Known(boolean issued, List<String> vkeys) {}
    Known known =
        store.read(
            tx -> {
              if (tx.workspace(workspaceId).isEmpty()) {
                throw ServiceException.notFound("workspace");
              }
              boolean issued =
                  tx.checkpoint(workspaceId, checkpoint.treeSize())
                      .map(c -> Arrays.equals(c.rootHash(), checkpoint.rootHash()))
                      .orElse(false);
              return new Known(issued, tx.logWitnesses(workspaceId));
            });
    if (!known.issued()) {
      throw bad(
          "this log issued no checkpoint of tree size "
              + checkpoint.treeSize()
              + " with that root hash");
    }
    List<WitnessKey> keys = known.vkeys().stream().map(WitnessKey::parseVkey).toList();
    Instant now = clock.instant();
    List<LogTx.Cosignature> verified = new ArrayList<>();
    for (SignedNote.Signature s : note.signatures()) {
      if (s.keyName().equals(origin)) {
        continue; // the log's own signature
      }
      WitnessKey key = keys.stream().filter(k -> k.matches(s)).findFirst().orElse(null);
      if (key == null) {
        throw bad("signature line of " + s + " is by no witness configured for this workspace");
      }
      try {
        key.verify(checkpoint, s);
      } catch (LogVerificationException e) {
        throw bad(e.getMessage());
      }
      String line = s.line();
      verified.add(
          new LogTx.Cosignature(
              workspaceId,
              checkpoint.treeSize(),
              id(key),
              line.substring(0, line.length() - 1),
              now));
    }
    if (verified.isEmpty()) {
      throw bad("holds no witness cosignature line");
    }
    store.inTransaction(
        tx -> {
          for (LogTx.Cosignature c : verified) {
            tx.insertCosignature(c);
          }
          return null;
        });
    return new Accepted(verified.size());
  }
}
