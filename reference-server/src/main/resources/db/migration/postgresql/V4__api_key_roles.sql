-- API keys get roles, ids, names, expiry and revocation (decisions.md §15). Every key that
-- existed before roles becomes a `full` key, so nothing that worked stops working. A migrated
-- key gets a random opaque id starting with key_00, which sorts before every id made later
-- (those are key_ + a lowercase ULID, whose first two characters are 01 or greater), so a
-- listing in key id order is still oldest first. Its prefix is unknown until the key is next used.
ALTER TABLE api_keys ADD COLUMN key_id TEXT COLLATE "C";
UPDATE api_keys
  SET key_id = 'key_00' || substr(replace(gen_random_uuid()::text, '-', ''), 1, 24);
ALTER TABLE api_keys ALTER COLUMN key_id SET NOT NULL;
ALTER TABLE api_keys ADD COLUMN role TEXT COLLATE "C" NOT NULL DEFAULT 'full';
ALTER TABLE api_keys ADD COLUMN name TEXT;
ALTER TABLE api_keys ADD COLUMN approver_id TEXT;
ALTER TABLE api_keys ADD COLUMN prefix TEXT;
ALTER TABLE api_keys ADD COLUMN expires_at BIGINT;
ALTER TABLE api_keys ADD COLUMN last_used_at BIGINT;
ALTER TABLE api_keys ADD COLUMN revoked_at BIGINT;
CREATE UNIQUE INDEX api_keys_by_id ON api_keys (key_id);
CREATE INDEX api_keys_by_workspace ON api_keys (workspace_id, key_id);
