package dev.agentauth.server.log;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.verifier.log.LogHash;

/** Leaf hashes of stored signed receipts. */
final class LeafHashes {
  private static final ObjectMapper JSON = new ObjectMapper();

  private LeafHashes() {}

  /** SHA-256(0x00 ‖ canonical bytes of the signed receipt, signature member included). */
  static byte[] of(String signedJson) {
    try {
      return LogHash.leaf(JSON.readTree(signedJson));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a stored signed receipt is not JSON", e);
    }
  }
}
