-- Webhook delivery retention and outbox metrics. The delivery worker deletes finished deliveries
-- (delivered, failed, cancelled) whose event is older than the retention period, a bounded batch
-- per transaction, and measures the pending ones by their event's time for /metrics; both look
-- deliveries up by status, then event time.
CREATE INDEX webhook_deliveries_by_status_and_event_time
  ON webhook_deliveries (status, event_created_at);
