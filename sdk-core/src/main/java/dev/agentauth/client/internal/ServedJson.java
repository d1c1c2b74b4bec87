package dev.agentauth.client.internal;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.model.ReceiptLookup;
import dev.agentauth.model.WorkspaceKeys;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Reads answers whose JSON text the caller gets as served, byte for byte, beside the typed check
 * that the answer has the documented shape: the keys document, and the {@code receipt} member of a
 * signed receipt lookup. Nothing is re-serialized. Not part of the public API.
 */
public final class ServedJson {

  private ServedJson() {}

  /**
   * A receipt lookup: the typed answer, and for a signed receipt the text of its {@code receipt}
   * member as served.
   *
   * @param lookup the typed answer
   * @param receiptJson the {@code receipt} member's text, or {@code null} while pending
   */
  public record Receipt(ReceiptLookup lookup, String receiptJson) {}

  /** Reads a keys document: checked as {@link WorkspaceKeys}, returned as the body's text. */
  static String keys(ObjectMapper mapper, byte[] body) throws IOException {
    mapper.readValue(body, WorkspaceKeys.class);
    return new String(body, StandardCharsets.UTF_8);
  }

  /** Reads a receipt lookup, cutting the signed receipt's text out of the body as served. */
  static Receipt receipt(ObjectMapper mapper, byte[] body) throws IOException {
    ReceiptLookup lookup = mapper.readValue(body, ReceiptLookup.class);
    if (!(lookup instanceof ReceiptLookup.Signed)) {
      return new Receipt(lookup, null);
    }
    return new Receipt(lookup, member(mapper, body, "receipt"));
  }

  /**
   * Returns the text of the top-level object member {@code name} of {@code body}, which must be an
   * object, exactly as it appears in {@code body}.
   *
   * @throws IOException if the body is not an object or the member is missing, repeated or not an
   *     object
   */
  static String member(ObjectMapper mapper, byte[] body, String name) throws IOException {
    String found = null;
    try (JsonParser p = mapper.getFactory().createParser(body)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new IOException("expected a JSON object");
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken value = p.nextToken();
        if (!name.equals(field)) {
          p.skipChildren();
          continue;
        }
        if (found != null) {
          throw new IOException("the " + name + " member appears twice");
        }
        if (value != JsonToken.START_OBJECT) {
          throw new IOException("expected " + name + " to be an object, found " + value);
        }
        long start = p.currentTokenLocation().getByteOffset();
        p.skipChildren();
        long end = p.currentTokenLocation().getByteOffset() + 1; // after the closing brace
        if (start < 0 || end > body.length || start >= end) {
          throw new IOException("cannot locate the " + name + " member in the body");
        }
        found = new String(body, (int) start, (int) (end - start), StandardCharsets.UTF_8);
      }
    }
    if (found == null) {
      throw new IOException("the " + name + " member is missing");
    }
    return found;
  }
}
