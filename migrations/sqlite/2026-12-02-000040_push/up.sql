-- Push notifications: an account's devices (a Web Push subscription, an APNs device token or
-- an FCM registration token) and the push outbox, written in the transaction of the change
-- whose feed item it pushes, sent by any server process, and also each device's delivery log.
CREATE TABLE push_devices (
    id TEXT NOT NULL PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    -- web_push, apns or fcm
    provider TEXT NOT NULL,
    -- The Web Push endpoint URL, the APNs device token or the FCM registration token.
    address TEXT NOT NULL,
    -- Web Push: the browser's keys (RFC 8291), base64url.
    p256dh TEXT,
    auth TEXT,
    -- APNs: the app's bundle id and which environment the token belongs to.
    topic TEXT,
    sandbox BOOLEAN NOT NULL,
    -- JSON array of feed kinds to push.
    kinds TEXT NOT NULL,
    -- en or de
    language TEXT NOT NULL,
    -- Quiet hours in minutes of the device's day, and its offset from UTC in minutes.
    quiet_from INTEGER,
    quiet_until INTEGER,
    utc_offset INTEGER NOT NULL,
    created_at TIMESTAMP NOT NULL,
    UNIQUE (account_id, provider, address)
);
CREATE INDEX push_devices_account_idx ON push_devices (account_id);

CREATE TABLE push_outbox (
    id TEXT NOT NULL PRIMARY KEY,
    device_id TEXT NOT NULL REFERENCES push_devices (id) ON DELETE CASCADE,
    feed_seq BIGINT NOT NULL,
    kind TEXT NOT NULL,
    game_id TEXT,
    -- The feed item as the account's stream shows it (public facts only, R8).
    body TEXT NOT NULL,
    -- pending, delivered, collapsed (a newer push of the game replaced it) or failed
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    next_at TIMESTAMP NOT NULL,
    claimed_until TIMESTAMP,
    last_status INTEGER,
    last_error TEXT,
    created_at TIMESTAMP NOT NULL,
    finished_at TIMESTAMP
);
CREATE INDEX push_outbox_device_idx ON push_outbox (device_id, created_at);
CREATE INDEX push_outbox_pending_idx ON push_outbox (next_at, id) WHERE status = 'pending';
