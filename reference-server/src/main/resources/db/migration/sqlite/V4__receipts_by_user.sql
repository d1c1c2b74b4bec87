-- GET /v1/receipts?user_id= reads a user's receipts through this index, in receipt_id order,
-- instead of every receipt of the workspace. authorization_id has receipts_by_authorization; the
-- other filters are checked on a bounded window of rows (JdbcTx.SCAN_WINDOW), since each index
-- adds pages to every check's commit.
CREATE INDEX receipts_by_user ON receipts (workspace_id, user_id, receipt_id);
