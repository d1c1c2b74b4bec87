-- Revocation now marks the authorization's pending escalations 'cancelled' (they can no longer be
-- resolved). Escalations left 'pending' by revocations made before this version get the same
-- status, unless they had already run out their lifetime when the authorization was revoked.
UPDATE escalations SET status = 'cancelled'
WHERE status = 'pending'
  AND EXISTS (
    SELECT 1 FROM authorizations a
    WHERE a.workspace_id = escalations.workspace_id
      AND a.authorization_id = escalations.authorization_id
      AND a.revoked_at IS NOT NULL
      AND a.revoked_at < escalations.expires_at);
