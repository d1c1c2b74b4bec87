-- A check's receipts (one per scope) each carried the check's whole context, up to 16 KiB, so a
-- 20-scope check stored its context 20 times. From V10 a receipt whose context value is longer than
-- 256 characters is stored without it: payload_json (and so the text signed_json rebuilds) has the
-- value cut out at character context_at (counted in UTF-16 code units), and context_sha256 (the
-- SHA-256 of the value, lowercase hex) names its one row per workspace in receipt_contexts. The
-- server puts the value back when it reads the receipt, so every receipt reads byte for byte as it
-- was written. Rows written before V10 keep both columns NULL and read exactly as before.
ALTER TABLE receipts ADD COLUMN context_at INTEGER;
ALTER TABLE receipts ADD COLUMN context_sha256 TEXT;

CREATE TABLE receipt_contexts (
  workspace_id TEXT NOT NULL,
  sha256       TEXT NOT NULL,
  context_json TEXT NOT NULL,
  PRIMARY KEY (workspace_id, sha256)
);
