-- Webhooks (decisions §20): a workspace's receivers, and the outbox of their deliveries. A
-- delivery row is written in the same transaction as the event that causes it (one row per
-- subscribed webhook), so a commit never loses its event; the delivery worker of any instance
-- leases due rows (FOR UPDATE OF d SKIP LOCKED, then lease_owner/lease_until) so that two instances
-- never send one attempt at once. The secret is sealed with the master key, like signing seeds.
CREATE TABLE webhooks (
  workspace_id  TEXT COLLATE "C" NOT NULL,
  webhook_id    TEXT COLLATE "C" NOT NULL,
  url           TEXT NOT NULL,
  events        TEXT COLLATE "C" NOT NULL, -- ",type,type," so that LIKE '%,type,%' matches one
  secret_sealed BYTEA NOT NULL,
  created_at    BIGINT NOT NULL,
  PRIMARY KEY (workspace_id, webhook_id)
);

CREATE TABLE webhook_deliveries (
  webhook_id       TEXT COLLATE "C" NOT NULL,
  event_id         TEXT COLLATE "C" NOT NULL,
  workspace_id     TEXT COLLATE "C" NOT NULL,
  event_type       TEXT COLLATE "C" NOT NULL,
  event_created_at BIGINT NOT NULL,
  payload          TEXT,             -- null: built when sent (escalation.expired)
  authorization_id TEXT COLLATE "C",
  subject_id       TEXT COLLATE "C",
  status           TEXT COLLATE "C" NOT NULL,
  attempts         INTEGER NOT NULL DEFAULT 0,
  next_attempt_at  BIGINT,
  lease_owner      TEXT,
  lease_until      BIGINT,
  last_attempt_at  BIGINT,
  last_status_code INTEGER,
  last_error       TEXT,
  delivered_at     BIGINT,
  PRIMARY KEY (webhook_id, event_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at)
  WHERE status = 'pending';
CREATE INDEX webhook_deliveries_by_authorization
  ON webhook_deliveries (workspace_id, authorization_id) WHERE status = 'pending';
