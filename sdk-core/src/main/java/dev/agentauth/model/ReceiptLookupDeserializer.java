package dev.agentauth.model;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import java.io.IOException;

/**
 * Picks the {@link ReceiptLookup} variant by {@code status}: {@code pending} or {@code signed}. The
 * variant is read with the caller's configuration (strictness included).
 */
final class ReceiptLookupDeserializer extends StdDeserializer<ReceiptLookup> {
  private static final long serialVersionUID = 1L;

  ReceiptLookupDeserializer() {
    super(ReceiptLookup.class);
  }

  @Override
  public ReceiptLookup deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
    JsonNode node = ctxt.readTree(p);
    JsonNode status = node.isObject() ? node.get("status") : null;
    String value = status != null && status.isTextual() ? status.textValue() : null;
    if (PendingReceipt.STATUS.equals(value)) {
      return ctxt.readTreeAsValue(node, PendingReceipt.class);
    }
    if (ReceiptLookup.Signed.STATUS.equals(value)) {
      return ctxt.readTreeAsValue(node, ReceiptLookup.Signed.class);
    }
    return ctxt.reportInputMismatch(
        this, "expected a receipt lookup with status \"pending\" or \"signed\", found: %s", node);
  }
}
