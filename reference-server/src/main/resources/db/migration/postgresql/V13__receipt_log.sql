-- The receipt log (decisions.md §18): per workspace, an append-only Merkle tree (RFC 9162 §2.1)
-- whose leaves are the signed receipts, in the order the log integrated them.
--
-- A receipt's leaf index is a column of its row: log_index, NULL until the log integrates it.
-- The unique index makes a duplicate index impossible; receipts_unlogged is what the integrator
-- reads (signed, not yet in the log, in receipt id order), one seek per workspace. Receipts
-- signed before this migration are integrated, oldest id first, once a server runs it.
ALTER TABLE receipts ADD COLUMN log_index BIGINT;
CREATE UNIQUE INDEX receipts_by_log_index ON receipts (workspace_id, log_index)
  WHERE log_index IS NOT NULL;
CREATE INDEX receipts_unlogged ON receipts (workspace_id, receipt_id)
  WHERE signed_json IS NOT NULL AND log_index IS NULL;

-- One row per workspace whose log holds a leaf: its size. An integrator appends only if the size
-- is still the one it started from (UPDATE ... WHERE tree_size = ?), which locks this row until
-- its transaction ends: two integrators never append at the same size.
CREATE TABLE log_heads (
  workspace_id TEXT COLLATE "C" PRIMARY KEY,
  tree_size    BIGINT NOT NULL
);

-- The hash of every perfect subtree: the 2^level leaves from idx * 2^level (level 0: the leaf
-- hashes). About two rows per leaf; any root, inclusion or consistency proof needs O(log n) of
-- them, read by primary key in one query.
CREATE TABLE log_nodes (
  workspace_id TEXT COLLATE "C" NOT NULL,
  level        SMALLINT NOT NULL,
  idx          BIGINT NOT NULL,
  hash         BYTEA NOT NULL,
  PRIMARY KEY (workspace_id, level, idx)
);

-- Every checkpoint issued (a C2SP signed note), so that ?tree_size=N serves it again.
CREATE TABLE log_checkpoints (
  workspace_id TEXT COLLATE "C" NOT NULL,
  tree_size    BIGINT NOT NULL,
  root_hash    BYTEA NOT NULL,
  note         TEXT COLLATE "C" NOT NULL,
  issued_at    BIGINT NOT NULL,
  PRIMARY KEY (workspace_id, tree_size)
);

-- Accepted witness cosignatures: one per witness (name+key hash) and checkpoint.
CREATE TABLE log_cosignatures (
  workspace_id TEXT COLLATE "C" NOT NULL,
  tree_size    BIGINT NOT NULL,
  witness      TEXT COLLATE "C" NOT NULL,
  line         TEXT COLLATE "C" NOT NULL,
  accepted_at  BIGINT NOT NULL,
  PRIMARY KEY (workspace_id, tree_size, witness)
);

-- A workspace's witness keys (C2SP vkeys), one per line, in the order they were set.
CREATE TABLE log_witnesses (
  workspace_id TEXT COLLATE "C" PRIMARY KEY,
  vkeys        TEXT COLLATE "C" NOT NULL
);
