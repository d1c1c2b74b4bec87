package dev.agentauth.model;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import java.io.IOException;

/**
 * Picks the {@link ReceiptRef} subtype by content: {@code signature} present means {@link
 * SignedReceipt}, {@code "status": "pending"} means {@link PendingReceipt}. The subtype is read
 * with the caller's configuration (strictness included).
 */
final class ReceiptRefDeserializer extends StdDeserializer<ReceiptRef> {
  private static final long serialVersionUID = 1L;

  ReceiptRefDeserializer() {
    super(ReceiptRef.class);
  }

  @Override
  public ReceiptRef deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
    JsonNode node = ctxt.readTree(p);
    if (!node.isObject()) {
      return ctxt.reportInputMismatch(
          this, "expected a receipt object, found: %s", node.getNodeType());
    }
    if (node.has("signature")) {
      return ctxt.readTreeAsValue(node, SignedReceipt.class);
    }
    JsonNode status = node.get("status");
    if (status != null && status.isTextual() && PendingReceipt.STATUS.equals(status.textValue())) {
      return ctxt.readTreeAsValue(node, PendingReceipt.class);
    }
    return ctxt.reportInputMismatch(
        this,
        "expected a signed receipt (with \"signature\") or a pending envelope (\"status\":"
            + " \"pending\"), found status: %s",
        status);
  }
}
