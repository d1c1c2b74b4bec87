-- Receipts each workspace stored per UTC day (YYYY-MM-DD), for the per-workspace receipt quotas.
-- Each server instance counts in memory and adds its counts here about once a second; on start,
-- and every second after, it reads the totals back, which is how several instances see each
-- other's usage. Receipts stored before this migration are not counted: the day of the upgrade
-- starts at zero.
CREATE TABLE receipt_usage (
  workspace_id TEXT COLLATE "C" NOT NULL,
  day          TEXT COLLATE "C" NOT NULL,
  receipts     BIGINT NOT NULL,
  bytes        BIGINT NOT NULL,
  PRIMARY KEY (day, workspace_id)
);
