DROP TABLE push_outbox;
DROP TABLE push_devices;
