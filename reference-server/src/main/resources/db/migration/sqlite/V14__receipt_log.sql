-- The receipt log (decisions.md §18): per workspace, an append-only Merkle tree (RFC 9162 §2.1)
-- whose leaves are the signed receipts, in the order the log integrated them.
--
-- A receipt's leaf index is a column of its row: log_index, NULL until the log integrates it.
-- The unique index makes a duplicate index impossible; receipts_unlogged is what the integrator
-- reads (signed, not yet in the log, in receipt id order), one seek per workspace. Receipts
-- signed before this migration are integrated, oldest id first, once a server runs it.
ALTER TABLE receipts ADD COLUMN log_index INTEGER;
-- (SQLite keeps the signature member alone, migration V3: signed means signature IS NOT NULL.)
CREATE UNIQUE INDEX receipts_by_log_index ON receipts (workspace_id, log_index)
  WHERE log_index IS NOT NULL;
CREATE INDEX receipts_unlogged ON receipts (workspace_id, receipt_id)
  WHERE signature IS NOT NULL AND log_index IS NULL;

-- One row per workspace whose log holds a leaf: its size. An integrator appends only if the size
-- is still the one it started from (UPDATE ... WHERE tree_size = ?), which locks this row until
-- its transaction ends: two integrators never append at the same size.
CREATE TABLE log_heads (
  workspace_id TEXT PRIMARY KEY,
  tree_size    INTEGER NOT NULL
);

-- The hash of every perfect subtree: the 2^level leaves from idx * 2^level (level 0: the leaf
-- hashes). About two rows per leaf; any root, inclusion or consistency proof needs O(log n) of
-- them, read by primary key in one query.
CREATE TABLE log_nodes (
  workspace_id TEXT NOT NULL,
  level        INTEGER NOT NULL,
  idx          INTEGER NOT NULL,
  hash         BLOB NOT NULL,
  PRIMARY KEY (workspace_id, level, idx)
) WITHOUT ROWID;

-- Every checkpoint issued (a C2SP signed note), so that ?tree_size=N serves it again.
CREATE TABLE log_checkpoints (
  workspace_id TEXT NOT NULL,
  tree_size    INTEGER NOT NULL,
  root_hash    BLOB NOT NULL,
  note         TEXT NOT NULL,
  issued_at    INTEGER NOT NULL,
  PRIMARY KEY (workspace_id, tree_size)
);

-- Accepted witness cosignatures: one per witness (name+key hash) and checkpoint.
CREATE TABLE log_cosignatures (
  workspace_id TEXT NOT NULL,
  tree_size    INTEGER NOT NULL,
  witness      TEXT NOT NULL,
  line         TEXT NOT NULL,
  accepted_at  INTEGER NOT NULL,
  PRIMARY KEY (workspace_id, tree_size, witness)
);

-- A workspace's witness keys (C2SP vkeys), one per line, in the order they were set.
CREATE TABLE log_witnesses (
  workspace_id TEXT PRIMARY KEY,
  vkeys        TEXT NOT NULL
);
