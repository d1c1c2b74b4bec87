package dev.agentauth.server.signing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.server.store.MemoryStore;
import dev.agentauth.server.store.ReceiptRow;
import dev.agentauth.server.store.SigningKeyRow;
import dev.agentauth.server.store.Store;
import dev.agentauth.server.store.WorkspaceRow;
import dev.agentauth.verifier.signing.ReceiptSigner;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.crypto.signers.Ed25519Signer;
import org.junit.jupiter.api.Test;

/**
 * The signer against a store whose keys change between the signer's key read and its store of the
 * signatures, as when another server instance rotates the workspace's key at that moment.
 */
class SigningServiceIT {
  private static final Instant T0 = Instant.parse("2026-11-22T10:00:00.000Z");
  private static final String WS = "ws_a";
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private static SigningKeyRow key(String id, byte fill, Instant from, Instant until) {
    byte[] seed = new byte[32];
    java.util.Arrays.fill(seed, fill);
    return new SigningKeyRow(
        WS, id, seed, ReceiptSigner.fromSeed(id, seed).publicKey(), from, until);
  }

  private static ReceiptRow pending(String id, Instant issuedAt) {
    String payload = "{\"issued_at\":\"" + issuedAt + "\",\"receipt_id\":\"" + id + "\",\"v\":1}";
    return new ReceiptRow(
        WS, id, "auth_1", "u", null, null, "s", null, "allow", issuedAt, payload, null);
  }

  /** A store that, right after the signer's first key read, rotates the workspace's key. */
  private static final class RotatingStore implements Store {
    final MemoryStore delegate = new MemoryStore();
    final AtomicBoolean rotated = new AtomicBoolean();
    final SigningKeyRow newKey;
    final Instant cutover;

    RotatingStore(SigningKeyRow newKey, Instant cutover) {
      this.newKey = newKey;
      this.cutover = cutover;
    }

    @Override
    public <T> T inTransaction(Work<T> work) {
      return delegate.inTransaction(work);
    }

    @Override
    public <T> T read(Work<T> work) {
      T result = delegate.read(work);
      // After the signer's first read of the workspace's keys (not its count or page of receipts).
      boolean keys =
          result instanceof List<?> l && !l.isEmpty() && l.get(0) instanceof SigningKeyRow;
      if (keys && rotated.compareAndSet(false, true)) {
        delegate.inTransaction(
            tx -> {
              for (SigningKeyRow k : tx.signingKeys(WS)) {
                tx.updateSigningKey(k.retiredAt(cutover));
              }
              tx.insertSigningKey(newKey);
              return null;
            });
      }
      return result;
    }

    @Override
    public boolean isReachable() {
      return true;
    }

    @Override
    public String describe() {
      return "rotating";
    }

    @Override
    public void close() {
      delegate.close();
    }
  }

  @Test
  void aReceiptIsSignedWithTheKeyValidAtItsIssueTimeEvenWhenARotationLandsMidBatch()
      throws Exception {
    Instant cutover = T0.plusSeconds(5);
    SigningKeyRow oldKey = key("ws_a/old", (byte) 1, T0, null);
    SigningKeyRow newKey = key("ws_a/new", (byte) 2, cutover, null);
    RotatingStore store = new RotatingStore(newKey, cutover);
    ReceiptRow before = pending("R_BEFORE", T0.plusSeconds(1));
    ReceiptRow after = pending("R_AFTER", T0.plusSeconds(10));
    store.inTransaction(
        tx -> {
          tx.insertWorkspace(new WorkspaceRow(WS, "pro", T0));
          tx.insertSigningKey(oldKey);
          return null;
        });
    SigningService signer =
        new SigningService(store, Clock.fixed(T0.plusSeconds(11), ZoneOffset.UTC), nanos -> {});
    var beforeSigned = signer.whenSigned(before.receiptId());
    var afterSigned = signer.whenSigned(after.receiptId());
    store.inTransaction(
        tx -> {
          tx.insertReceipt(before);
          tx.insertReceipt(after);
          return null;
        });
    signer.start(); // resumes both pending receipts as one batch
    try {
      JsonNode b = MAPPER.readTree(beforeSigned.get(10, TimeUnit.SECONDS));
      JsonNode a = MAPPER.readTree(afterSigned.get(10, TimeUnit.SECONDS));
      assertThat(store.rotated).isTrue();
      assertThat(b.path("signature").path("key_id").asText()).isEqualTo("ws_a/old");
      assertThat(a.path("signature").path("key_id").asText()).isEqualTo("ws_a/new");
      assertThat(verifies(before, b, oldKey)).isTrue();
      assertThat(verifies(after, a, newKey)).isTrue();
      assertThat(verifies(after, a, oldKey)).isFalse();
      // What was stored is what the waiters got, and each receipt was stored once.
      List<String> stored =
          store.read(
              tx ->
                  List.of(
                      tx.receipt(WS, before.receiptId()).orElseThrow().signedJson(),
                      tx.receipt(WS, after.receiptId()).orElseThrow().signedJson()));
      assertThat(stored).containsExactly(b.toString(), a.toString());
      assertThat(signer.signedTotal()).isEqualTo(2);
    } finally {
      signer.close();
      store.close();
    }
  }

  private static boolean verifies(ReceiptRow row, JsonNode signed, SigningKeyRow key) {
    byte[] sig = Base64.getUrlDecoder().decode(signed.path("signature").path("value").asText());
    Ed25519Signer v = new Ed25519Signer();
    v.init(false, new Ed25519PublicKeyParameters(key.publicKey(), 0));
    byte[] message = row.payloadJson().getBytes(StandardCharsets.UTF_8);
    v.update(message, 0, message.length);
    return v.verifySignature(sig);
  }
}
