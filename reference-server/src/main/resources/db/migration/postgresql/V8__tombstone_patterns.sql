-- Pattern tombstones (issue 25 item 11): a tombstone may name a resource_pattern, matched like a
-- scope constraint's resource_pattern, instead of one exact resource. They live apart from the
-- exact tombstones so that the exact lookup every check makes stays one primary-key probe, and
-- a check counts a workspace's patterns (at most 100, enforced on creation) through this key.
CREATE TABLE tombstone_patterns (
  workspace_id TEXT COLLATE "C" NOT NULL,
  pattern      TEXT COLLATE "C" NOT NULL,
  reason       TEXT COLLATE "C",
  created_at   BIGINT NOT NULL,
  PRIMARY KEY (workspace_id, pattern)
);
