//! Errors at the HTTP edge: each [`Code`] has one status (the table below), and every error a
//! client sees is an RFC 9457 `application/problem+json` body.

use actix_web::{http::header, http::StatusCode, HttpResponse, ResponseError};
use serde::Serialize;
use utoipa::ToSchema;

use racko_rules::RulesCode;

use crate::error::{Code, ServiceError};

/// The problem+json body (RFC 9457) with the project's extension members.
#[derive(Debug, Serialize, ToSchema)]
pub struct Problem {
    /// The problem type: a link, relative to the server, to the code's entry in the error
    /// catalogue (`/docs/errors#<code>`), where its status, meaning and remedy are written.
    #[serde(rename = "type")]
    #[schema(format = "uri-reference", example = "/docs/errors#not_your_turn")]
    pub kind: String,
    pub title: String,
    pub status: u16,
    pub detail: String,
    /// Stable machine-readable code, e.g. `not_your_turn`, `stale_version`.
    pub code: Code,
    /// The game's current version, on `stale_version`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_version: Option<i64>,
}

/// The one table from error code to HTTP status.
pub fn status(code: Code) -> StatusCode {
    use Code::*;
    match code {
        BadRequest
        | InvalidJson
        | InvalidPath
        | InvalidQuery
        | InvalidValue
        | InvalidIdempotencyKey
        | InvalidIfMatch
        | VersionMismatch
        | InvalidAfter
        | InvalidLimit
        | InvalidWait
        | InvalidCursor
        | InvalidSeq
        | InvalidTimeRange
        | InvalidLeaderboard
        | ExplainNeedsPostgres
        | ClientError => StatusCode::BAD_REQUEST,
        Unauthorized | InvalidCredentials | TokenExpired | InvalidRefreshToken
        | RefreshTokenReused => StatusCode::UNAUTHORIZED,
        Forbidden | NotAPlayer | NotTheCreator | AdminOnly | TestModeDisabled | Blocked
        | RatedNeedsAccount | VacationNeedsAccount => StatusCode::FORBIDDEN,
        NotFound
        | GameNotFound
        | PlayerNotFound
        | WebhookNotFound
        | SessionNotFound
        | FriendNotFound
        | FriendRequestNotFound
        | BlockNotFound
        | InvitationNotFound
        | DeviceNotFound
        | PushNotConfigured
        | SeekNotFound
        | ChatMessageNotFound
        | VacationNotFound => StatusCode::NOT_FOUND,
        MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
        NotAcceptable => StatusCode::NOT_ACCEPTABLE,
        RequestTimeout => StatusCode::REQUEST_TIMEOUT,
        UsernameTaken
        | NotAGuest
        | AlreadyJoined
        | GameFull
        | GameStarted
        | GameNotStarted
        | GameCancelled
        | GameNotFinished
        | RematchExists
        | GameBusy
        | Rules(RulesCode::NotAwaited | RulesCode::AlreadyResigned)
        | StaleVersion
        | SeatTaken
        | InviteCodeTaken
        | IdempotencyKeyTaken
        | SettingTaken
        | UnknownRulesVersion
        | TooManyWebhooks
        | TooManyInvitations
        | TooManyDevices
        | SeatResigned
        | AlreadyFriends
        | FriendRequestExists
        | TooManyFriends
        | TooManyFriendRequests
        | TooManyBlocks
        | InviteeSeated
        | TooManySeeks
        | SeekClosed
        | AlreadyOnVacation
        | VacationAllowanceExhausted => StatusCode::CONFLICT,
        LengthRequired => StatusCode::LENGTH_REQUIRED,
        PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
        UriTooLong => StatusCode::URI_TOO_LONG,
        UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
        InvalidBody
        | InvalidDevice
        | DeviceAddressRefused
        | InvalidUsername
        | InvalidPassword
        | IdempotencyKeyReused
        // Every other refusal of the rules, a new one included.
        | Rules(_)
        | InvalidWebhookUrl
        | WebhookAddressRefused
        | InvalidWebhookKind
        | InvalidComputerSeat
        | OwnAccount
        | InvalidRatingRange
        | InvalidSeekExpiry
        | InvalidChatMessage
        | InvalidReportReason
        | RatedWithComputer
        | VacationTooShort
        | VacationTooLong => StatusCode::UNPROCESSABLE_ENTITY,
        VersionRequired => StatusCode::PRECONDITION_REQUIRED,
        RateLimited | TooManyRequests => StatusCode::TOO_MANY_REQUESTS,
        HeadersTooLarge => StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
        Internal | ServerError => StatusCode::INTERNAL_SERVER_ERROR,
        Unavailable | NotReady | Busy | StoreUnavailable => StatusCode::SERVICE_UNAVAILABLE,
    }
}

pub fn problem(e: &ServiceError) -> Problem {
    let status = status(e.code);
    Problem {
        kind: super::errors::problem_type(e.code),
        title: status.canonical_reason().unwrap_or("Error").to_string(),
        status: status.as_u16(),
        detail: e.detail.clone(),
        code: e.code,
        current_version: e.current_version,
    }
}

impl ResponseError for ServiceError {
    fn status_code(&self) -> StatusCode {
        status(self.code)
    }

    fn error_response(&self) -> HttpResponse {
        let mut res = HttpResponse::build(self.status_code());
        res.content_type("application/problem+json");
        if self.status_code() == StatusCode::UNAUTHORIZED {
            // RFC 6750 §3: tell the client which scheme to use.
            res.insert_header((header::WWW_AUTHENTICATE, "Bearer"));
        }
        if let Some(seconds) = self.retry_after {
            res.insert_header((header::RETRY_AFTER, seconds));
        }
        if self.code == Code::TooManyRequests {
            // A refused stream gives its connection back: a flood of them cannot keep
            // descriptors open through keep-alive.
            res.force_close();
        }
        res.json(problem(self))
    }
}

/// The code for a status the app answered without a problem body of its own (actix's
/// defaults, a panic caught by the middleware).
pub fn fallback(status: StatusCode) -> ServiceError {
    let (code, detail) = match status.as_u16() {
        400 => (Code::BadRequest, "the request is malformed"),
        401 => (Code::Unauthorized, "authentication is required"),
        403 => (Code::Forbidden, "not allowed"),
        404 => (Code::NotFound, "no such resource"),
        405 => (Code::MethodNotAllowed, "this method is not allowed here"),
        406 => (Code::NotAcceptable, "cannot answer in an acceptable format"),
        408 => (Code::RequestTimeout, "the request took too long"),
        411 => (Code::LengthRequired, "a Content-Length is required"),
        413 => (Code::PayloadTooLarge, "the body is too large"),
        414 => (Code::UriTooLong, "the URI is too long"),
        415 => (Code::UnsupportedMediaType, "unsupported content type"),
        429 => (Code::TooManyRequests, "too many requests"),
        431 => (Code::HeadersTooLarge, "the headers are too large"),
        500 => (Code::Internal, "an internal error occurred"),
        503 => (Code::Unavailable, "the service is unavailable"),
        _ if status.is_client_error() => (Code::ClientError, "the request cannot be served"),
        _ => (Code::ServerError, "an internal error occurred"),
    };
    ServiceError::new(code, detail)
}

/// The problem answer for a bare `status`, keeping that status even where its code's own
/// status differs (e.g. 402 answers `client_error` with 402).
pub fn fallback_response(status: StatusCode) -> HttpResponse {
    let e = fallback(status);
    let mut res = e.error_response();
    if res.status() != status {
        let mut body = problem(&e);
        body.status = status.as_u16();
        body.title = status.canonical_reason().unwrap_or("Error").to_string();
        res = HttpResponse::build(status)
            .content_type("application/problem+json")
            .json(body);
    }
    res
}
