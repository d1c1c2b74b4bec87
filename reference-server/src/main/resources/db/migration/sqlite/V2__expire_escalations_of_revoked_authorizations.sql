-- Revocation now ends the lifetime of the authorization's pending escalations: their expires_at
-- becomes the revocation time, so they read as 'expired' and approver tools stop listing them as
-- pending. Escalations left pending by revocations made before this version get the same.
UPDATE escalations SET expires_at = (
    SELECT a.revoked_at FROM authorizations a
    WHERE a.workspace_id = escalations.workspace_id
      AND a.authorization_id = escalations.authorization_id)
WHERE status = 'pending'
  AND EXISTS (
    SELECT 1 FROM authorizations a
    WHERE a.workspace_id = escalations.workspace_id
      AND a.authorization_id = escalations.authorization_id
      AND a.revoked_at IS NOT NULL
      AND a.revoked_at < escalations.expires_at);
