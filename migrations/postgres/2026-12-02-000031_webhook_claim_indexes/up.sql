-- A claim reads each endpoint's oldest due deliveries, and counts those in flight (claimed,
-- lease running): both without reading the backlog.
CREATE INDEX webhook_outbox_pending_idx ON webhook_outbox (endpoint_id, next_at, id)
    WHERE status = 'pending';
CREATE INDEX webhook_outbox_claimed_idx ON webhook_outbox (claimed_until)
    WHERE claimed_until IS NOT NULL;
