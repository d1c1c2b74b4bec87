-- agentauth reference server schema, SQLite dialect. Timestamps are epoch milliseconds (UTC);
-- JSON columns hold the stored row's lists and maps as JSON text. Every table is scoped by
-- workspace_id. "Newest" lookups order by SQLite's implicit rowid (insertion order).

CREATE TABLE meta (
  name  TEXT PRIMARY KEY,
  value BLOB NOT NULL
);

CREATE TABLE workspaces (
  workspace_id TEXT PRIMARY KEY,
  plan         TEXT NOT NULL,
  created_at   INTEGER NOT NULL
);

CREATE TABLE api_keys (
  key_hash     TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL,
  created_at   INTEGER NOT NULL
);

CREATE TABLE signing_keys (
  workspace_id        TEXT NOT NULL,
  key_id              TEXT NOT NULL,
  private_seed_sealed BLOB NOT NULL,
  public_key          BLOB NOT NULL,
  active_from         INTEGER NOT NULL,
  active_until        INTEGER,
  PRIMARY KEY (workspace_id, key_id)
);

CREATE TABLE authorizations (
  workspace_id            TEXT NOT NULL,
  authorization_id        TEXT NOT NULL,
  user_id                 TEXT NOT NULL,
  agent_id                TEXT NOT NULL,
  bundle_id               TEXT,
  scopes                  TEXT NOT NULL,
  requires_confirm_for    TEXT NOT NULL,
  requires_escalation_for TEXT NOT NULL,
  escalation_targets      TEXT NOT NULL,
  expires_at              INTEGER NOT NULL,
  budget_limit_micros     INTEGER,
  budget_spent_micros     INTEGER NOT NULL,
  created_at              INTEGER NOT NULL,
  revoked_at              INTEGER,
  metadata                TEXT,
  PRIMARY KEY (workspace_id, authorization_id)
);
CREATE INDEX authorizations_by_user ON authorizations (workspace_id, user_id, authorization_id);

CREATE TABLE allow_counters (
  workspace_id     TEXT NOT NULL,
  authorization_id TEXT NOT NULL,
  scope            TEXT NOT NULL,
  day              TEXT NOT NULL,
  allows           INTEGER NOT NULL,
  PRIMARY KEY (workspace_id, authorization_id, scope, day)
);

CREATE TABLE nonces (
  workspace_id     TEXT NOT NULL,
  nonce            TEXT NOT NULL,
  authorization_id TEXT NOT NULL,
  scope            TEXT NOT NULL,
  resource         TEXT,
  resource_key     TEXT NOT NULL,
  created_at       INTEGER NOT NULL,
  expires_at       INTEGER NOT NULL,
  consumed_at      INTEGER,
  approved         INTEGER,
  PRIMARY KEY (workspace_id, nonce)
);
CREATE INDEX nonces_by_target ON nonces (workspace_id, authorization_id, scope, resource_key);

CREATE TABLE grants (
  workspace_id     TEXT NOT NULL,
  grant_id         TEXT NOT NULL,
  authorization_id TEXT NOT NULL,
  scope            TEXT NOT NULL,
  resource         TEXT,
  resource_key     TEXT NOT NULL,
  nonce            TEXT NOT NULL,
  created_at       INTEGER NOT NULL,
  expires_at       INTEGER NOT NULL,
  PRIMARY KEY (workspace_id, grant_id)
);
CREATE INDEX grants_by_target ON grants (workspace_id, authorization_id, scope, resource_key, expires_at);

CREATE TABLE escalations (
  workspace_id         TEXT NOT NULL,
  escalation_id        TEXT NOT NULL,
  authorization_id     TEXT NOT NULL,
  scope                TEXT NOT NULL,
  resource             TEXT,
  resource_key         TEXT NOT NULL,
  status               TEXT NOT NULL,
  escalation_to        TEXT,
  created_at           INTEGER NOT NULL,
  expires_at           INTEGER NOT NULL,
  resolved_by          TEXT,
  resolved_at          INTEGER,
  note                 TEXT,
  approval_expires_at  INTEGER,
  approval_consumed_at INTEGER,
  PRIMARY KEY (workspace_id, escalation_id)
);
CREATE INDEX escalations_by_target ON escalations (workspace_id, authorization_id, scope, resource_key);

CREATE TABLE bundles (
  workspace_id            TEXT NOT NULL,
  bundle_id               TEXT NOT NULL,
  agent_id                TEXT NOT NULL,
  scopes                  TEXT NOT NULL,
  requires_confirm_for    TEXT NOT NULL,
  requires_escalation_for TEXT NOT NULL,
  escalation_targets      TEXT NOT NULL,
  default_expiry_days     INTEGER,
  description             TEXT,
  created_at              INTEGER NOT NULL,
  updated_at              INTEGER NOT NULL,
  deleted_at              INTEGER,
  PRIMARY KEY (workspace_id, bundle_id)
);

CREATE TABLE tombstones (
  workspace_id TEXT NOT NULL,
  resource     TEXT NOT NULL,
  reason       TEXT,
  created_at   INTEGER NOT NULL,
  PRIMARY KEY (workspace_id, resource)
);

CREATE TABLE receipts (
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
  signed_json      TEXT,
  PRIMARY KEY (workspace_id, receipt_id)
);
CREATE INDEX receipts_by_authorization ON receipts (workspace_id, authorization_id, receipt_id);
CREATE INDEX receipts_pending ON receipts (receipt_id) WHERE signed_json IS NULL;

CREATE TABLE idempotency (
  api_key_hash    TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  request_hash    TEXT NOT NULL,
  status          INTEGER NOT NULL,
  content_type    TEXT NOT NULL,
  body            BLOB NOT NULL,
  created_at      INTEGER NOT NULL,
  PRIMARY KEY (api_key_hash, idempotency_key)
);
CREATE INDEX idempotency_by_age ON idempotency (created_at);
