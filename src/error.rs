//! The service's error: a stable [`Code`] and a detail safe to show the caller. The HTTP edge
//! (`http::problem`) maps each code to a status in one table and renders RFC 9457
//! `application/problem+json`. Internal causes are logged here and never sent.

use racko_rules::{RulesCode, RulesError};
use serde::{Deserialize, Serialize};
use utoipa::openapi::{schema::Type, ObjectBuilder, RefOr, Schema};
use utoipa::{PartialSchema, ToSchema};

pub mod catalogue;

/// Declares the codes once: the enum, its wire names and the list of all of them. The rules'
/// refusals come from the rules crate's own list (`racko_rules::RulesCode`), in one variant
/// standing where `@rules;` stands, so a new rules refusal needs no edit here.
macro_rules! codes {
    (
        $($(#[$doc:meta])* $variant:ident = $text:literal,)*
        @rules;
        $($(#[$doc_after:meta])* $after:ident = $text_after:literal,)*
    ) => {
        /// Every machine-readable error code the API sends (`Problem.code`), snake_case on the
        /// wire. A code, once published, keeps its meaning.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Code {
            $($(#[$doc])* $variant,)*
            /// An illegal action or bad options (R1..R10): the rules crate's own code.
            Rules(RulesCode),
            $($(#[$doc_after])* $after,)*
        }

        impl Code {
            /// Every code in the order declared, the rules' codes in their own order.
            pub const ALL: &'static [Code] = &{
                const BEFORE: &[Code] = &[$(Code::$variant,)*];
                const AFTER: &[Code] = &[$(Code::$after,)*];
                const RULES: &[RulesCode] = RulesCode::ALL;
                const N: usize = BEFORE.len() + RULES.len() + AFTER.len();
                let mut all = [Code::Internal; N];
                let (mut i, mut k) = (0, 0);
                while k < BEFORE.len() {
                    all[i] = BEFORE[k];
                    (i, k) = (i + 1, k + 1);
                }
                k = 0;
                while k < RULES.len() {
                    all[i] = Code::Rules(RULES[k]);
                    (i, k) = (i + 1, k + 1);
                }
                k = 0;
                while k < AFTER.len() {
                    all[i] = AFTER[k];
                    (i, k) = (i + 1, k + 1);
                }
                all
            };

            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$variant => $text,)*
                    Code::Rules(code) => code.as_str(),
                    $(Code::$after => $text_after,)*
                }
            }
        }
    };
}

impl Code {
    /// The code of this wire name.
    pub fn parse(text: &str) -> Option<Code> {
        Code::ALL.iter().copied().find(|code| code.as_str() == text)
    }
}

impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Code {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Code, D::Error> {
        let text = String::deserialize(deserializer)?;
        Code::parse(&text)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown error code `{text}`")))
    }
}

// By hand, from the wire names.
impl PartialSchema for Code {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .description(Some(
                "Every machine-readable error code the API sends (`Problem.code`), \
                 snake_case on the wire. A code, once published, keeps its meaning.",
            ))
            .enum_values(Some(Code::ALL.iter().map(|code| code.as_str())))
            .into()
    }
}

impl ToSchema for Code {}

codes! {
    // The request itself.
    BadRequest = "bad_request",
    InvalidJson = "invalid_json",
    InvalidBody = "invalid_body",
    InvalidPath = "invalid_path",
    InvalidQuery = "invalid_query",
    InvalidValue = "invalid_value",
    UnsupportedMediaType = "unsupported_media_type",
    PayloadTooLarge = "payload_too_large",
    NotFound = "not_found",
    MethodNotAllowed = "method_not_allowed",
    NotAcceptable = "not_acceptable",
    RequestTimeout = "request_timeout",
    LengthRequired = "length_required",
    UriTooLong = "uri_too_long",
    HeadersTooLarge = "headers_too_large",
    TooManyRequests = "too_many_requests",
    ClientError = "client_error",
    InvalidIdempotencyKey = "invalid_idempotency_key",
    IdempotencyKeyReused = "idempotency_key_reused",
    IdempotencyKeyTaken = "idempotency_key_taken",
    InvalidIfMatch = "invalid_if_match",
    VersionMismatch = "version_mismatch",
    VersionRequired = "version_required",
    InvalidAfter = "invalid_after",
    InvalidLimit = "invalid_limit",
    InvalidWait = "invalid_wait",
    InvalidCursor = "invalid_cursor",
    InvalidSeq = "invalid_seq",
    InvalidTimeRange = "invalid_time_range",
    // Accounts and access.
    Unauthorized = "unauthorized",
    Forbidden = "forbidden",
    InvalidCredentials = "invalid_credentials",
    /// The access token is past its life: refresh it.
    TokenExpired = "token_expired",
    /// The refresh token is unknown, malformed, expired, or its session has ended.
    InvalidRefreshToken = "invalid_refresh_token",
    /// A spent refresh token came back: its session has been ended (RFC 9700 §4.14.2).
    RefreshTokenReused = "refresh_token_reused",
    SessionNotFound = "session_not_found",
    InvalidUsername = "invalid_username",
    InvalidPassword = "invalid_password",
    UsernameTaken = "username_taken",
    NotAGuest = "not_a_guest",
    PlayerNotFound = "player_not_found",
    RateLimited = "rate_limited",
    AdminOnly = "admin_only",
    TestModeDisabled = "test_mode_disabled",
    // Games.
    GameNotFound = "game_not_found",
    NotAPlayer = "not_a_player",
    AlreadyJoined = "already_joined",
    GameFull = "game_full",
    GameStarted = "game_started",
    GameNotStarted = "game_not_started",
    GameCancelled = "game_cancelled",
    GameNotFinished = "game_not_finished",
    /// Only the game's creator may do this (invite accounts).
    NotTheCreator = "not_the_creator",
    /// The game invites as many accounts as allowed.
    TooManyInvitations = "too_many_invitations",
    /// Another request linked a rematch to this game first (store-internal: the asker then
    /// joins that rematch).
    RematchExists = "rematch_exists",
    /// Another change holds the game for longer than the lock timeout; try again shortly.
    GameBusy = "game_busy",
    StaleVersion = "stale_version",
    SeatTaken = "seat_taken",
    InviteCodeTaken = "invite_code_taken",
    UnknownRulesVersion = "unknown_rules_version",
    ExplainNeedsPostgres = "explain_needs_postgres",
    // Webhooks.
    WebhookNotFound = "webhook_not_found",
    InvalidWebhookUrl = "invalid_webhook_url",
    WebhookAddressRefused = "webhook_address_refused",
    InvalidWebhookKind = "invalid_webhook_kind",
    TooManyWebhooks = "too_many_webhooks",
    // Push devices.
    DeviceNotFound = "device_not_found",
    InvalidDevice = "invalid_device",
    DeviceAddressRefused = "device_address_refused",
    TooManyDevices = "too_many_devices",
    PushNotConfigured = "push_not_configured",
    // Friends, blocks and invitations.
    FriendNotFound = "friend_not_found",
    FriendRequestNotFound = "friend_request_not_found",
    BlockNotFound = "block_not_found",
    InvitationNotFound = "invitation_not_found",
    AlreadyFriends = "already_friends",
    FriendRequestExists = "friend_request_exists",
    TooManyFriends = "too_many_friends",
    TooManyFriendRequests = "too_many_friend_requests",
    TooManyBlocks = "too_many_blocks",
    InviteeSeated = "invitee_seated",
    /// One of the two accounts blocks the other.
    Blocked = "blocked",
    /// A friend request or block naming the caller itself.
    OwnAccount = "own_account",
    // Seeks.
    SeekNotFound = "seek_not_found",
    /// The account has as many open seeks as allowed.
    TooManySeeks = "too_many_seeks",
    /// The seek is no longer open: matched, cancelled or expired.
    SeekClosed = "seek_closed",
    InvalidRatingRange = "invalid_rating_range",
    InvalidSeekExpiry = "invalid_seek_expiry",
    /// A guest asked for a rated game.
    RatedNeedsAccount = "rated_needs_account",
    // Table talk.
    InvalidChatMessage = "invalid_chat_message",
    InvalidReportReason = "invalid_report_reason",
    ChatMessageNotFound = "chat_message_not_found",
    /// A rated game asked for with computer seats.
    RatedWithComputer = "rated_with_computer",
    /// A leaderboard query names a pool that does not exist, or a bound out of range.
    InvalidLeaderboard = "invalid_leaderboard",
    // Vacations (R10.5).
    VacationNotFound = "vacation_not_found",
    /// A guest asked for a vacation.
    VacationNeedsAccount = "vacation_needs_account",
    AlreadyOnVacation = "already_on_vacation",
    VacationAllowanceExhausted = "vacation_allowance_exhausted",
    VacationTooShort = "vacation_too_short",
    VacationTooLong = "vacation_too_long",
    // The rules (R1..R10): an illegal action or bad options, every `racko_rules::RulesCode`.
    @rules;
    // The server.
    Internal = "internal",
    ServerError = "server_error",
    Unavailable = "unavailable",
    NotReady = "not_ready",
    /// The database is overloaded (a statement or a wait for a connection ran over its time).
    Busy = "busy",
    /// The database cannot be reached or cannot write; nothing was changed.
    StoreUnavailable = "store_unavailable",
    SettingTaken = "setting_taken",
    /// A computer seat named at creation does not exist or is named twice.
    InvalidComputerSeat = "invalid_computer_seat",
    /// The caller's seat has resigned: the server plays it now (R10.3).
    SeatResigned = "seat_resigned",
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a request was refused: what the service returns and the HTTP edge renders.
#[derive(Debug)]
pub struct ServiceError {
    pub code: Code,
    pub detail: String,
    /// The game's current version, on `stale_version`.
    pub current_version: Option<i64>,
    /// Seconds for the `Retry-After` header (`rate_limited`, `busy`, `game_busy`,
    /// `store_unavailable`).
    pub retry_after: Option<u64>,
}

impl ServiceError {
    pub fn new(code: Code, detail: impl Into<String>) -> ServiceError {
        ServiceError {
            code,
            detail: detail.into(),
            current_version: None,
            retry_after: None,
        }
    }

    pub fn unauthorized(detail: impl Into<String>) -> ServiceError {
        ServiceError::new(Code::Unauthorized, detail)
    }

    pub fn stale_version(current: i64) -> ServiceError {
        ServiceError {
            current_version: Some(current),
            ..ServiceError::new(
                Code::StaleVersion,
                format!("the game has changed; its current version is {current}"),
            )
        }
    }

    /// 429 `rate_limited`: the client may try again after `wait` (rounded up to seconds).
    pub fn rate_limited(wait: std::time::Duration) -> ServiceError {
        let seconds = (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1);
        ServiceError {
            retry_after: Some(seconds),
            ..ServiceError::new(
                Code::RateLimited,
                format!("too many tries from this address; try again in {seconds} s"),
            )
        }
    }

    /// 409 `game_busy`: another change held the game past the lock timeout.
    pub fn game_busy(cause: impl std::fmt::Display) -> ServiceError {
        tracing::warn!(error = %cause, "game busy");
        ServiceError {
            retry_after: Some(1),
            ..ServiceError::new(
                Code::GameBusy,
                "another change of this game is taking long; try again in a moment",
            )
        }
    }

    /// For causes a client must not see: logs `cause` and answers an opaque `internal`.
    pub fn internal(cause: impl std::fmt::Display) -> ServiceError {
        tracing::error!(error = %cause, "internal error");
        ServiceError::new(Code::Internal, "an internal error occurred")
    }
}

impl std::fmt::Display for ServiceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.detail)
    }
}

impl std::error::Error for ServiceError {}

/// An illegal action or bad options, with the rule's code. Rules messages never hold hidden
/// cards (see `racko_rules::error`).
impl From<RulesError> for ServiceError {
    fn from(e: RulesError) -> ServiceError {
        ServiceError::new(Code::Rules(e.rules_code()), e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_names_are_the_serde_names_and_unique() {
        let mut seen = std::collections::HashSet::new();
        for code in Code::ALL {
            let wire = serde_json::to_value(code).expect("serializes");
            assert_eq!(wire, code.as_str(), "{code:?}");
            assert!(seen.insert(code.as_str()), "{code} twice");
            let back: Code = serde_json::from_value(wire).expect("deserializes");
            assert_eq!(back, *code);
        }
    }

    #[test]
    fn rules_codes_keep_the_rules_crate_names() {
        let examples = RulesError::examples();
        assert_eq!(examples.len(), RulesCode::ALL.len());
        for e in examples {
            let code = ServiceError::from(e.clone()).code;
            assert_eq!(code.as_str(), e.code());
            assert!(Code::ALL.contains(&code), "{code}");
            assert_eq!(Code::parse(e.code()), Some(code));
        }
    }
}
