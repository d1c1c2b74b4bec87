-- A signed receipt's text is its canonical payload with the signature member appended
-- (payload minus its closing brace, then ,"signature":{...}}). V1 stored that text whole, beside
-- the payload, so every receipt held its payload twice, and signing grew each row by more than
-- half its size. Rows that grow after they were written split the table's pages; with group
-- commit, that churn was a large part of what each commit wrote to the WAL.
--
-- From V3 a row stores only the signature member. signed_json becomes a virtual column that
-- rebuilds the same text, byte for byte, so every query that reads it is unchanged. SQLite cannot
-- turn a stored column into a generated one, so the table is rebuilt (the 12-step procedure of
-- https://www.sqlite.org/lang_altertable.html#otheralter; no other table refers to it).

CREATE TABLE receipts_v3 (
  workspace_id     TEXT NOT NULL,
  receipt_id       TEXT NOT NULL,
  authorization_id TEXT,
  user_id          TEXT,
  resource         TEXT,
  session_id       TEXT,
  scope            TEXT,
  event            TEXT,
  decision         TEXT,
  issued_at        INTEGER NOT NULL,
  payload_json     TEXT NOT NULL,
  -- The signature member's value ({"alg":...,"key_id":...,"value":...}); NULL while pending.
  signature        TEXT,
  signed_json      TEXT GENERATED ALWAYS AS (
    CASE WHEN signature IS NULL THEN NULL
    ELSE substr(payload_json, 1, length(payload_json) - 1) || ',"signature":' || signature || '}'
    END) VIRTUAL,
  PRIMARY KEY (workspace_id, receipt_id)
);

-- signed_json = payload_json minus its last character, then ',"signature":' (13 characters),
-- the member's value and '}': the value starts at character length(payload_json) + 13.
INSERT INTO receipts_v3 (workspace_id, receipt_id, authorization_id, user_id, resource, session_id,
                         scope, event, decision, issued_at, payload_json, signature)
SELECT workspace_id, receipt_id, authorization_id, user_id, resource, session_id, scope, event,
       decision, issued_at, payload_json,
       CASE WHEN signed_json IS NULL THEN NULL
       ELSE substr(signed_json, length(payload_json) + 13,
                   length(signed_json) - length(payload_json) - 13)
       END
FROM receipts
ORDER BY rowid;

-- Every signed text must come back byte for byte; if one would not, the CHECK fails, the
-- migration rolls back and the server refuses to start with the old table intact.
CREATE TEMP TABLE v3_rebuilt_texts_that_differ (n INTEGER CHECK (n = 0));
INSERT INTO v3_rebuilt_texts_that_differ
SELECT count(*) FROM receipts o JOIN receipts_v3 r USING (workspace_id, receipt_id)
WHERE r.signed_json IS NOT o.signed_json;
DROP TABLE v3_rebuilt_texts_that_differ;

DROP TABLE receipts;
ALTER TABLE receipts_v3 RENAME TO receipts;
CREATE INDEX receipts_by_authorization ON receipts (workspace_id, authorization_id, receipt_id);
CREATE INDEX receipts_pending ON receipts (receipt_id) WHERE signature IS NULL;
