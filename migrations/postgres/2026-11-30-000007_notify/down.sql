DROP TABLE webhook_outbox;
DROP TABLE webhook_endpoints;
DROP TABLE account_feed;
DROP TABLE account_feed_heads;
