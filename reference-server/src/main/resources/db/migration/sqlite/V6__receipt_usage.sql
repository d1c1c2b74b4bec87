-- Receipts each workspace stored per UTC day (YYYY-MM-DD), for the per-workspace receipt quotas.
-- The server counts in memory and adds its counts here about once a second; on start it reads
-- them back. Receipts stored before this migration are not counted: the day of the upgrade starts
-- at zero.
CREATE TABLE receipt_usage (
  workspace_id TEXT NOT NULL,
  day          TEXT NOT NULL,
  receipts     INTEGER NOT NULL,
  bytes        INTEGER NOT NULL,
  PRIMARY KEY (day, workspace_id)
);
