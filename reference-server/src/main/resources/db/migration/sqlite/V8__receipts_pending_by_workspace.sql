-- The signer reads pending receipts back one workspace at a time, in turn, so that one workspace's
-- backlog never stands before another's receipts; it also counts each workspace's pending receipts
-- and finds the workspaces that have any with one seek each. This index serves all three.
CREATE INDEX receipts_pending_by_workspace ON receipts (workspace_id, receipt_id)
  WHERE signature IS NULL;
