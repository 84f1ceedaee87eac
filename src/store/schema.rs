//! The one diesel schema both backends share (see `migrations/*/…_init/up.sql`). Only types
//! that diesel's MultiConnection maps on both backends appear here: ids and JSON are Text,
//! times are Timestamp (UTC).

diesel::table! {
    settings (key) {
        key -> Text,
        value -> Text,
    }
}

diesel::table! {
    accounts (id) {
        id -> Text,
        username -> Text,
        username_lower -> Text,
        password_hash -> Nullable<Text>,
        role -> Text,
        guest -> Bool,
        created_at -> Timestamp,
        token_generation -> BigInt,
        deleted_at -> Nullable<Timestamp>,
    }
}

diesel::table! {
    games (id) {
        id -> Text,
        created_by -> Text,
        invite_code -> Text,
        options -> Text,
        rules_version -> Integer,
        state -> Text,
        status -> Text,
        test_mode -> Bool,
        stacked -> Text,
        version -> BigInt,
        last_seq -> BigInt,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        due_at -> Nullable<Timestamp>,
        rematch_id -> Nullable<Text>,
        visibility -> Text,
        spectators -> Text,
        invited -> Text,
        rated -> Bool,
        listed_at -> Timestamp,
    }
}

diesel::table! {
    game_seats (game_id, seat) {
        game_id -> Text,
        seat -> SmallInt,
        account_id -> Text,
        username -> Text,
        awaiting -> Bool,
        deadline -> Nullable<Timestamp>,
        reminded -> Bool,
        away_until -> Nullable<Timestamp>,
    }
}

diesel::table! {
    game_events (game_id, seq) {
        game_id -> Text,
        seq -> BigInt,
        round -> Integer,
        kind -> Text,
        actor -> Nullable<Text>,
        payload -> Text,
        created_at -> Timestamp,
    }
}

diesel::table! {
    idempotency_keys (account_id, key) {
        account_id -> Text,
        key -> Text,
        request_hash -> Text,
        status -> Integer,
        body -> Text,
        created_at -> Timestamp,
        stored_as -> Text,
    }
}

diesel::table! {
    account_feed_heads (account_id) {
        account_id -> Text,
        last_seq -> BigInt,
    }
}

diesel::table! {
    account_feed (account_id, seq) {
        account_id -> Text,
        seq -> BigInt,
        kind -> Text,
        game_id -> Nullable<Text>,
        game_version -> Nullable<BigInt>,
        payload -> Text,
        created_at -> Timestamp,
    }
}

diesel::table! {
    webhook_endpoints (id) {
        id -> Text,
        account_id -> Text,
        url -> Text,
        kinds -> Text,
        secret -> Text,
        enabled -> Bool,
        created_at -> Timestamp,
    }
}

diesel::table! {
    webhook_outbox (id) {
        id -> Text,
        endpoint_id -> Text,
        feed_seq -> BigInt,
        kind -> Text,
        body -> Text,
        status -> Text,
        attempts -> Integer,
        next_at -> Timestamp,
        claimed_until -> Nullable<Timestamp>,
        last_status -> Nullable<Integer>,
        last_error -> Nullable<Text>,
        created_at -> Timestamp,
        finished_at -> Nullable<Timestamp>,
    }
}

diesel::table! {
    sessions (id) {
        id -> Text,
        account_id -> Text,
        refresh_hash -> Text,
        created_at -> Timestamp,
        last_used_at -> Timestamp,
        expires_at -> Timestamp,
        user_agent -> Nullable<Text>,
        client_address -> Nullable<Text>,
        previous_hash -> Nullable<Text>,
        rotated_at -> Nullable<Timestamp>,
    }
}

diesel::table! {
    friendships (low_id, high_id) {
        low_id -> Text,
        high_id -> Text,
        requested_by -> Text,
        created_at -> Timestamp,
        accepted_at -> Nullable<Timestamp>,
    }
}

diesel::table! {
    blocks (blocker_id, blocked_id) {
        blocker_id -> Text,
        blocked_id -> Text,
        created_at -> Timestamp,
    }
}

diesel::table! {
    push_devices (id) {
        id -> Text,
        account_id -> Text,
        provider -> Text,
        address -> Text,
        p256dh -> Nullable<Text>,
        auth -> Nullable<Text>,
        topic -> Nullable<Text>,
        sandbox -> Bool,
        kinds -> Text,
        language -> Text,
        quiet_from -> Nullable<Integer>,
        quiet_until -> Nullable<Integer>,
        utc_offset -> Integer,
        created_at -> Timestamp,
    }
}

diesel::table! {
    push_outbox (id) {
        id -> Text,
        device_id -> Text,
        feed_seq -> BigInt,
        kind -> Text,
        game_id -> Nullable<Text>,
        body -> Text,
        status -> Text,
        attempts -> Integer,
        next_at -> Timestamp,
        claimed_until -> Nullable<Timestamp>,
        last_status -> Nullable<Integer>,
        last_error -> Nullable<Text>,
        created_at -> Timestamp,
        finished_at -> Nullable<Timestamp>,
    }
}

diesel::table! {
    seeks (id) {
        id -> Text,
        account_id -> Text,
        pool -> Text,
        options -> Text,
        rated -> Bool,
        rating -> Integer,
        min_rating -> Nullable<Integer>,
        max_rating -> Nullable<Integer>,
        status -> Text,
        game_id -> Nullable<Text>,
        created_at -> Timestamp,
        expires_at -> Timestamp,
        ended_at -> Nullable<Timestamp>,
    }
}

diesel::table! {
    chat_messages (game_id, seq) {
        game_id -> Text,
        seq -> BigInt,
        author_id -> Text,
        body -> Text,
        removed -> Bool,
        created_at -> Timestamp,
    }
}

diesel::table! {
    game_results (account_id, game_id) {
        account_id -> Text,
        game_id -> Text,
        pool -> Text,
        rated -> Bool,
        rank -> Integer,
        won -> Bool,
        points -> BigInt,
        rounds -> Integer,
        ended_at -> Timestamp,
    }
}

diesel::table! {
    chat_reports (game_id, seq, reporter_id) {
        game_id -> Text,
        seq -> BigInt,
        reporter_id -> Text,
        reason -> Text,
        created_at -> Timestamp,
    }
}

diesel::table! {
    ratings (account_id, pool) {
        account_id -> Text,
        pool -> Text,
        mu -> Double,
        sigma -> Double,
        rating -> Integer,
        games -> Integer,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    rating_log (account_id, game_id) {
        account_id -> Text,
        game_id -> Text,
        pool -> Text,
        rank -> Integer,
        mu_before -> Double,
        sigma_before -> Double,
        mu_after -> Double,
        sigma_after -> Double,
        rating_before -> Integer,
        rating_after -> Integer,
        at -> Timestamp,
    }
}

diesel::joinable!(ratings -> accounts (account_id));

diesel::table! {
    vacations (id) {
        id -> Text,
        account_id -> Text,
        starts_at -> Timestamp,
        ends_at -> Timestamp,
        ended_at -> Nullable<Timestamp>,
    }
}

diesel::joinable!(seeks -> accounts (account_id));
diesel::joinable!(chat_messages -> accounts (author_id));
diesel::joinable!(push_outbox -> push_devices (device_id));
diesel::joinable!(sessions -> accounts (account_id));
diesel::joinable!(webhook_outbox -> webhook_endpoints (endpoint_id));
diesel::joinable!(game_seats -> games (game_id));
diesel::joinable!(game_events -> games (game_id));

diesel::allow_tables_to_appear_in_same_query!(
    settings,
    accounts,
    games,
    game_seats,
    game_events,
    idempotency_keys,
    account_feed_heads,
    account_feed,
    webhook_endpoints,
    webhook_outbox,
    sessions,
    push_devices,
    push_outbox,
    friendships,
    blocks,
    seeks,
    chat_messages,
    chat_reports,
    game_results,
    ratings,
    rating_log,
    vacations,
);
