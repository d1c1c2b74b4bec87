-- Revocations are logged store-wide, one entry per revoked key, numbered in commit order (one
-- write transaction runs at a time; AUTOINCREMENT never reuses a number): every instance picks
-- up new revocations with one range read after the last number it saw, whatever the number of
-- keys it has cached. Keys revoked before this migration need no entry: an instance reads them
-- from api_keys as revoked when it first meets them.
CREATE TABLE api_key_revocations (
  seq      INTEGER PRIMARY KEY AUTOINCREMENT,
  key_hash TEXT NOT NULL
);
-- Counting a workspace's live keys (its cap) reads the index entries of unrevoked keys only.
CREATE INDEX api_keys_live ON api_keys (workspace_id, expires_at) WHERE revoked_at IS NULL;
-- An approver key may be bound to escalation_to labels (a JSON array of strings); NULL: unbound.
ALTER TABLE api_keys ADD COLUMN targets TEXT;
