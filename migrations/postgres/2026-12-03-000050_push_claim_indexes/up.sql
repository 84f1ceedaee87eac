-- A push claim reads each device's oldest due pushes, and counts those in flight (claimed,
-- lease running): both without reading the delivery log or the backlog. The pending rows'
-- index by device serves the backlog's count too, so the one by time alone goes: every push
-- written or finished would keep it up to date for nothing.
CREATE INDEX push_outbox_device_pending_idx ON push_outbox (device_id, next_at, id)
    WHERE status = 'pending';
CREATE INDEX push_outbox_claimed_idx ON push_outbox (claimed_until)
    WHERE claimed_until IS NOT NULL;
DROP INDEX push_outbox_pending_idx;
