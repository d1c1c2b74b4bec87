-- agentauth reference server schema, PostgreSQL dialect. Timestamps are epoch milliseconds (UTC);
-- JSON columns hold the stored row's lists and maps as JSON text. Every table is scoped by
-- workspace_id. "Newest" lookups order by a seq column (insertion order). Text
-- columns use the "C" collation so that keys sort by code point, as cursors and the other stores do.

CREATE TABLE meta (
  name  TEXT COLLATE "C" PRIMARY KEY,
  value BYTEA NOT NULL
);

CREATE TABLE workspaces (
  workspace_id TEXT COLLATE "C" PRIMARY KEY,
  plan         TEXT COLLATE "C" NOT NULL,
  created_at   BIGINT NOT NULL
);

CREATE TABLE api_keys (
  key_hash     TEXT COLLATE "C" PRIMARY KEY,
  workspace_id TEXT COLLATE "C" NOT NULL,
  created_at   BIGINT NOT NULL
);

CREATE TABLE signing_keys (
  workspace_id        TEXT COLLATE "C" NOT NULL,
  key_id              TEXT COLLATE "C" NOT NULL,
  private_seed_sealed BYTEA NOT NULL,
  public_key          BYTEA NOT NULL,
  active_from         BIGINT NOT NULL,
  active_until        BIGINT,
  PRIMARY KEY (workspace_id, key_id)
);

CREATE TABLE authorizations (
  workspace_id            TEXT COLLATE "C" NOT NULL,
  authorization_id        TEXT COLLATE "C" NOT NULL,
  user_id                 TEXT COLLATE "C" NOT NULL,
  agent_id                TEXT COLLATE "C" NOT NULL,
  bundle_id               TEXT COLLATE "C",
  scopes                  TEXT COLLATE "C" NOT NULL,
  requires_confirm_for    TEXT COLLATE "C" NOT NULL,
  requires_escalation_for TEXT COLLATE "C" NOT NULL,
  escalation_targets      TEXT COLLATE "C" NOT NULL,
  expires_at              BIGINT NOT NULL,
  budget_limit_micros     BIGINT,
  budget_spent_micros     BIGINT NOT NULL,
  created_at              BIGINT NOT NULL,
  revoked_at              BIGINT,
  metadata                TEXT COLLATE "C",
  PRIMARY KEY (workspace_id, authorization_id)
);
CREATE INDEX authorizations_by_user ON authorizations (workspace_id, user_id, authorization_id);

CREATE TABLE allow_counters (
  workspace_id     TEXT COLLATE "C" NOT NULL,
  authorization_id TEXT COLLATE "C" NOT NULL,
  scope            TEXT COLLATE "C" NOT NULL,
  day              TEXT COLLATE "C" NOT NULL,
  allows           BIGINT NOT NULL,
  PRIMARY KEY (workspace_id, authorization_id, scope, day)
);

CREATE TABLE nonces (
  seq                  BIGSERIAL NOT NULL,
  workspace_id     TEXT COLLATE "C" NOT NULL,
  nonce            TEXT COLLATE "C" NOT NULL,
  authorization_id TEXT COLLATE "C" NOT NULL,
  scope            TEXT COLLATE "C" NOT NULL,
  resource         TEXT COLLATE "C",
  resource_key     TEXT COLLATE "C" NOT NULL,
  created_at       BIGINT NOT NULL,
  expires_at       BIGINT NOT NULL,
  consumed_at      BIGINT,
  approved         BOOLEAN,
  PRIMARY KEY (workspace_id, nonce)
);
CREATE INDEX nonces_by_target ON nonces (workspace_id, authorization_id, scope, resource_key);

CREATE TABLE grants (
  seq                  BIGSERIAL NOT NULL,
  workspace_id     TEXT COLLATE "C" NOT NULL,
  grant_id         TEXT COLLATE "C" NOT NULL,
  authorization_id TEXT COLLATE "C" NOT NULL,
  scope            TEXT COLLATE "C" NOT NULL,
  resource         TEXT COLLATE "C",
  resource_key     TEXT COLLATE "C" NOT NULL,
  nonce            TEXT COLLATE "C" NOT NULL,
  created_at       BIGINT NOT NULL,
  expires_at       BIGINT NOT NULL,
  PRIMARY KEY (workspace_id, grant_id)
);
CREATE INDEX grants_by_target ON grants (workspace_id, authorization_id, scope, resource_key, expires_at);

CREATE TABLE escalations (
  seq                  BIGSERIAL NOT NULL,
  workspace_id         TEXT COLLATE "C" NOT NULL,
  escalation_id        TEXT COLLATE "C" NOT NULL,
  authorization_id     TEXT COLLATE "C" NOT NULL,
  scope                TEXT COLLATE "C" NOT NULL,
  resource             TEXT COLLATE "C",
  resource_key         TEXT COLLATE "C" NOT NULL,
  status               TEXT COLLATE "C" NOT NULL,
  escalation_to        TEXT COLLATE "C",
  created_at           BIGINT NOT NULL,
  expires_at           BIGINT NOT NULL,
  resolved_by          TEXT COLLATE "C",
  resolved_at          BIGINT,
  note                 TEXT COLLATE "C",
  approval_expires_at  BIGINT,
  approval_consumed_at BIGINT,
  PRIMARY KEY (workspace_id, escalation_id)
);
CREATE INDEX escalations_by_target ON escalations (workspace_id, authorization_id, scope, resource_key);

CREATE TABLE bundles (
  workspace_id            TEXT COLLATE "C" NOT NULL,
  bundle_id               TEXT COLLATE "C" NOT NULL,
  agent_id                TEXT COLLATE "C" NOT NULL,
  scopes                  TEXT COLLATE "C" NOT NULL,
  requires_confirm_for    TEXT COLLATE "C" NOT NULL,
  requires_escalation_for TEXT COLLATE "C" NOT NULL,
  escalation_targets      TEXT COLLATE "C" NOT NULL,
  default_expiry_days     BIGINT,
  description             TEXT COLLATE "C",
  created_at              BIGINT NOT NULL,
  updated_at              BIGINT NOT NULL,
  deleted_at              BIGINT,
  PRIMARY KEY (workspace_id, bundle_id)
);

CREATE TABLE tombstones (
  workspace_id TEXT COLLATE "C" NOT NULL,
  resource     TEXT COLLATE "C" NOT NULL,
  reason       TEXT COLLATE "C",
  created_at   BIGINT NOT NULL,
  PRIMARY KEY (workspace_id, resource)
);

CREATE TABLE receipts (
  workspace_id     TEXT COLLATE "C" NOT NULL,
  receipt_id       TEXT COLLATE "C" NOT NULL,
  authorization_id TEXT COLLATE "C",
  user_id          TEXT COLLATE "C",
  resource         TEXT COLLATE "C",
  session_id       TEXT COLLATE "C",
  scope            TEXT COLLATE "C",
  event            TEXT COLLATE "C",
  decision         TEXT COLLATE "C",
  issued_at        BIGINT NOT NULL,
  payload_json     TEXT COLLATE "C" NOT NULL,
  signed_json      TEXT COLLATE "C",
  PRIMARY KEY (workspace_id, receipt_id)
);
CREATE INDEX receipts_by_authorization ON receipts (workspace_id, authorization_id, receipt_id);
CREATE INDEX receipts_pending ON receipts (receipt_id) WHERE signed_json IS NULL;

CREATE TABLE idempotency (
  api_key_hash    TEXT COLLATE "C" NOT NULL,
  idempotency_key TEXT COLLATE "C" NOT NULL,
  request_hash    TEXT COLLATE "C" NOT NULL,
  status          INTEGER NOT NULL,
  content_type    TEXT COLLATE "C" NOT NULL,
  body            BYTEA NOT NULL,
  created_at      BIGINT NOT NULL,
  PRIMARY KEY (api_key_hash, idempotency_key)
);
CREATE INDEX idempotency_by_age ON idempotency (created_at);
