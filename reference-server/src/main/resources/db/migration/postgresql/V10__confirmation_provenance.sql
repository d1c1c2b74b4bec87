-- A confirmation window records who opened it (decisions.md §19): the id and role of the API key
-- that approved the nonce, and where the user's answer came from (`api`, `mcp_elicitation`,
-- `console`). The receipt of every allow the window gives carries them, with the approval time
-- (created_at), in context.agentauth_confirmation. Windows opened before V10 keep the three columns
-- NULL and their allows' receipts carry no such member.
ALTER TABLE grants ADD COLUMN approved_by_key_id TEXT COLLATE "C";
ALTER TABLE grants ADD COLUMN approved_by_role TEXT COLLATE "C";
ALTER TABLE grants ADD COLUMN approved_via TEXT COLLATE "C";
