DROP INDEX webhook_outbox_claimed_idx;
DROP INDEX webhook_outbox_pending_idx;
