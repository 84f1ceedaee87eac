CREATE INDEX push_outbox_pending_idx ON push_outbox (next_at, id) WHERE status = 'pending';
DROP INDEX push_outbox_claimed_idx;
DROP INDEX push_outbox_device_pending_idx;
