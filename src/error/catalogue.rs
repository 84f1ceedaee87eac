//! What each [`Code`] means and what a client should do about it: the source of the error
//! catalogue (`docs/errors.md`, served at `/docs/errors`). The match is exhaustive, so a new
//! code cannot ship without its entry.

use racko_rules::{Refusal, RulesCode};

use super::Code;

/// One code's entry in the catalogue.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub meaning: &'static str,
    pub action: &'static str,
}

const FIX: &str = "Correct the request; sent again unchanged, it gets the same answer.";
const RETRY: &str = "Wait the `Retry-After` seconds, then send the same request again \
                     (with the same `Idempotency-Key`, if it had one).";
const RELOAD: &str = "Fetch the game again and choose from its `legal_actions`.";
const RULES: &str = "Fetch the game again and choose from its `legal_actions`; this action \
                     is not legal now.";
const SIGN_IN: &str = "Sign in again (or create a guest) and send the new bearer token.";
const REPORT: &str = "Retry later; if it persists, report it with the time of the request.";
const NONE: &str = "Nothing to retry: the request cannot succeed as it stands.";

pub fn entry(code: Code) -> Entry {
    use Code::*;
    let (meaning, action) = match code {
        BadRequest => ("The request is malformed.", FIX),
        InvalidJson => ("The body is not well-formed JSON.", FIX),
        InvalidBody => (
            "The body is JSON but not of the expected shape (a missing, unknown or \
             mistyped field); `detail` names it.",
            FIX,
        ),
        InvalidPath => (
            "A path segment does not parse (e.g. an id that is not a UUID).",
            FIX,
        ),
        InvalidQuery => (
            "A query parameter is missing, unknown or does not parse.",
            FIX,
        ),
        InvalidValue => ("A value is out of its allowed range or form.", FIX),
        UnsupportedMediaType => (
            "The body's `Content-Type` is not one this endpoint reads.",
            "Send `Content-Type: application/json`.",
        ),
        PayloadTooLarge => (
            "The body is larger than the server accepts (`RACKO_MAX_BODY_BYTES`).",
            FIX,
        ),
        NotFound => ("No such resource, or not one the caller may see.", NONE),
        MethodNotAllowed => (
            "The path exists but not with this method; `Allow` lists the methods.",
            "Use a method from the `Allow` header.",
        ),
        NotAcceptable => (
            "The server cannot answer in a format the `Accept` header allows.",
            "Accept `application/json` (or `text/event-stream` on streams).",
        ),
        RequestTimeout => ("The request took too long to arrive.", RETRY),
        LengthRequired => ("The request has a body but no `Content-Length`.", FIX),
        UriTooLong => ("The request's URI is too long.", FIX),
        HeadersTooLarge => ("The request's headers are too large.", FIX),
        TooManyRequests => ("Too many requests in a short time.", RETRY),
        ClientError => (
            "The request cannot be served (an uncommon 4xx status).",
            FIX,
        ),
        InvalidIdempotencyKey => (
            "The `Idempotency-Key` header is not a valid key.",
            "Send a fresh random key (e.g. a UUID) of printable characters.",
        ),
        IdempotencyKeyReused => (
            "This `Idempotency-Key` was used before with a different request.",
            "Use a new key for a new request; reuse a key only to repeat the same request.",
        ),
        IdempotencyKeyTaken => (
            "Another request with this `Idempotency-Key` is being handled right now.",
            "Wait a moment and send the same request again: you get its stored answer.",
        ),
        InvalidIfMatch => ("`If-Match` is not a game's ETag (e.g. `\"7\"`).", FIX),
        VersionMismatch => ("The body's `version` and `If-Match` differ.", FIX),
        VersionRequired => (
            "A change of a game must say which version it was decided on.",
            "Send the version you saw: `version` in the body or `If-Match`.",
        ),
        InvalidAfter => (
            "The `after` cursor (or `Last-Event-ID`) does not parse.",
            FIX,
        ),
        InvalidLimit => ("`limit` is out of its allowed range.", FIX),
        InvalidWait => ("`wait` is out of its allowed range.", FIX),
        InvalidCursor => (
            "The page cursor does not parse or is not from this list.",
            FIX,
        ),
        InvalidSeq => ("The log position asked for is not in the game's log.", FIX),
        InvalidTimeRange => ("The time range is empty or reversed.", FIX),
        Unauthorized => (
            "No valid bearer token: missing, malformed or revoked (signed out, or its session \
             ended).",
            SIGN_IN,
        ),
        TokenExpired => (
            "The access token is past its life (`RACKO_TOKEN_TTL_SECS`, 15 minutes by default).",
            "Get a new one from `POST /v1/sessions/refresh` with the refresh token, then send \
             the request again; if that fails too, sign in again.",
        ),
        InvalidRefreshToken => (
            "The refresh token is malformed, unknown or expired, or its session has ended \
             (signed out, revoked, or dropped as the account's oldest).",
            SIGN_IN,
        ),
        RefreshTokenReused => (
            "A refresh token that had already been exchanged came back, so it may have been \
             stolen: the session has been ended, and neither its newer refresh token nor its \
             access tokens work any more.",
            "Sign in again. Send each refresh token once: one refresh at a time per session, \
             and keep the answer's new refresh token before using it.",
        ),
        Forbidden => ("The caller may not do this.", NONE),
        InvalidCredentials => (
            "The username or password is wrong.",
            "Ask the person again.",
        ),
        InvalidUsername => ("The username is not allowed; `detail` says why.", FIX),
        InvalidPassword => ("The password is not allowed; `detail` says why.", FIX),
        UsernameTaken => (
            "Another account has this username.",
            "Choose another username.",
        ),
        NotAGuest => (
            "Only a guest account can be claimed with a username and password.",
            NONE,
        ),
        PlayerNotFound => ("No account has this id or username.", NONE),
        RateLimited => ("Too many sign-in tries from this address.", RETRY),
        AdminOnly => ("Only an administrator may do this.", NONE),
        TestModeDisabled => (
            "This needs the server's test mode (`RACKO_TEST_MODE`), which is off.",
            "Leave out the test-only part (e.g. a stacked deck).",
        ),
        GameNotFound => ("No such game, or not one the caller may see.", NONE),
        SessionNotFound => ("No such session among the caller's.", NONE),
        NotAPlayer => ("The caller has no seat in this game.", NONE),
        AlreadyJoined => ("The caller already has a seat in this game.", NONE),
        GameFull => (
            "Every seat of the game is taken.",
            "Join or create another game.",
        ),
        GameStarted => ("The game has started; it takes no more players.", NONE),
        GameNotStarted => (
            "The game is still waiting for players.",
            "Wait for it to start.",
        ),
        GameCancelled => ("The game was cancelled.", NONE),
        GameNotFinished => ("This needs a finished game (e.g. a rematch).", NONE),
        NotTheCreator => (
            "Only the game's creator may do this.",
            "Ask the creator (for an invitation: to invite the account).",
        ),
        TooManyInvitations => (
            "The game invites as many accounts as allowed (6).",
            "Invite no more; pass the invite code of an unlisted game on instead.",
        ),
        FriendNotFound => ("The caller is not friends with this account.", NONE),
        FriendRequestNotFound => (
            "No friend request waits between the caller and this account.",
            "Fetch `GET /v1/me/friends` for the requests there are.",
        ),
        BlockNotFound => ("The caller does not block this account.", NONE),
        InvitationNotFound => ("The game does not invite this account.", NONE),
        AlreadyFriends => ("The caller and this account are friends already.", NONE),
        FriendRequestExists => (
            "The caller has asked this account already; the request waits for its answer.",
            "Wait for the answer, or withdraw the request.",
        ),
        TooManyFriends => (
            "The caller or the other account has as many friends as allowed (200).",
            "Remove a friend first.",
        ),
        TooManyFriendRequests => (
            "Too many requests wait: the caller's sent ones (50) or the other account's \
             received ones (100).",
            "Withdraw a request, or wait for answers.",
        ),
        TooManyBlocks => (
            "The caller blocks as many accounts as allowed (500).",
            "Lift a block first.",
        ),
        InviteeSeated => (
            "The invited account has taken its seat: there is no invitation left to withdraw.",
            NONE,
        ),
        Blocked => (
            "One of the two accounts blocks the other: no friend request, invitation or \
             shared table between them.",
            NONE,
        ),
        OwnAccount => ("The request names the caller's own account.", FIX),
        SeekNotFound => (
            "The caller has no seek with this id (seeks ended a day ago are gone).",
            "Fetch `GET /v1/seeks` for the caller's seeks.",
        ),
        TooManySeeks => (
            "The caller has as many open seeks as allowed (5).",
            "Cancel one, or wait for one to be matched or to expire.",
        ),
        SeekClosed => (
            "The seek is no longer open: it was matched into a game, cancelled, or expired.",
            "Fetch the seek (`GET /v1/seeks/{id}`): a matched one names its game.",
        ),
        InvalidRatingRange => (
            "The rating range is not 0..=4000 at each end, or its `min` is above its `max`.",
            FIX,
        ),
        InvalidSeekExpiry => (
            "`expires_in` is not 60 to 604,800 seconds (a minute to a week).",
            FIX,
        ),
        RatedNeedsAccount => (
            "A guest asked for a rated game (a seek, a new game, or a seat at a rated table): \
             guests play casual games only.",
            "Play a casual game (`rated: false`), or register (`POST /v1/accounts/me/upgrade`).",
        ),
        RatedWithComputer => (
            "A rated game was asked for with computer seats: computers play casual games only.",
            "Create it casual (`rated: false`), or leave the seats to people.",
        ),
        InvalidLeaderboard => (
            "The leaderboard query names no pool (`family` with `players`: standard 2 to 4, \
             partner 4) or a bound out of range; `detail` says which.",
            FIX,
        ),
        InvalidChatMessage => (
            "The chat message is empty, longer than 500 characters, or holds a control \
             character other than a line break.",
            FIX,
        ),
        InvalidReportReason => (
            "The report's reason is longer than 300 characters or holds a control character.",
            FIX,
        ),
        ChatMessageNotFound => (
            "This game's chat has no message with that seq.",
            "Read the chat (`GET /v1/games/{id}/chat`) for its messages' seqs.",
        ),
        VacationNotFound => (
            "The caller is not on vacation (R10.5): none was taken, or it has ended.",
            "Fetch `GET /v1/me/vacation` for the caller's vacation and allowance.",
        ),
        VacationNeedsAccount => (
            "A guest asked for a vacation: only registered accounts may take one (R10.5).",
            "Register (`POST /v1/accounts/me/upgrade`), then ask again.",
        ),
        AlreadyOnVacation => (
            "The caller is on vacation already; one vacation at a time (R10.5).",
            "End it first (`DELETE /v1/me/vacation`), or wait until it ends.",
        ),
        VacationAllowanceExhausted => (
            "The vacation asked for is longer than the days left of this calendar year's 30 \
             (R10.5).",
            "Ask for at most `days_left` days (`GET /v1/me/vacation`), or wait for the next year.",
        ),
        VacationTooShort => ("A vacation lasts at least 1 day (R10.5).", FIX),
        VacationTooLong => ("A vacation lasts at most 14 days (R10.5).", FIX),
        RematchExists => (
            "A rematch of this game exists already.",
            "Join that rematch instead.",
        ),
        GameBusy => (
            "Another change holds the game for longer than the lock timeout.",
            RETRY,
        ),
        StaleVersion => (
            "The game changed since the version sent; `current_version` is the new one.",
            RELOAD,
        ),
        SeatTaken => (
            "Another player took that seat first.",
            "Join again for another seat.",
        ),
        InviteCodeTaken => ("Another game holds this invite code.", REPORT),
        UnknownRulesVersion => (
            "The game was played under rules this server does not know.",
            "Ask a server that knows that rules version.",
        ),
        ExplainNeedsPostgres => ("Query plans are available on PostgreSQL only.", NONE),
        WebhookNotFound => ("No such webhook, or not the caller's.", NONE),
        InvalidWebhookUrl => ("The webhook URL is not an absolute http(s) URL.", FIX),
        WebhookAddressRefused => (
            "The webhook URL points at an address the server does not call (loopback, \
             private, link-local or another special-purpose range).",
            "Use a publicly reachable URL.",
        ),
        InvalidWebhookKind => ("An event kind named is not one webhooks send.", FIX),
        DeviceNotFound => ("No such push device, or not the caller's.", NONE),
        InvalidDevice => (
            "The device is not one the server can push to: a field is missing, too long or \
             malformed for its provider; `detail` names it.",
            FIX,
        ),
        DeviceAddressRefused => (
            "The Web Push endpoint points at an address the server does not call (loopback, \
             private, link-local or another special-purpose range).",
            "Subscribe through the browser's own push service.",
        ),
        TooManyDevices => (
            "The account has as many push devices as allowed.",
            "Delete one before adding another.",
        ),
        PushNotConfigured => (
            "This server has no key for that push provider.",
            "Ask the operator to configure it, or use another provider.",
        ),
        TooManyWebhooks => (
            "The account has as many webhooks as allowed.",
            "Delete one before adding another.",
        ),
        // The service sends it too, when it has nothing for a seat to do (no hint).
        Rules(RulesCode::NotAwaited) => (RulesCode::NotAwaited.meaning(), RELOAD),
        Rules(code) => (code.meaning(), rules_action(code.refusal())),
        Internal => (
            "The server failed; nothing about the cause is sent.",
            REPORT,
        ),
        ServerError => ("The server failed (an uncommon 5xx status).", REPORT),
        Unavailable => ("The service is unavailable.", REPORT),
        NotReady => ("The server cannot reach its database (`/readyz`).", REPORT),
        Busy => ("The database is overloaded; nothing was changed.", RETRY),
        StoreUnavailable => (
            "The database cannot be reached; nothing was changed.",
            RETRY,
        ),
        SettingTaken => ("Another process wrote this server setting first.", REPORT),
        InvalidComputerSeat => (
            "A computer seat named at creation does not exist or is named twice.",
            FIX,
        ),
        SeatResigned => (
            "The caller's seat has resigned; the server plays it now.",
            NONE,
        ),
    };
    Entry { meaning, action }
}

/// What a client does about a refusal of the rules, by its kind.
fn rules_action(refusal: Refusal) -> &'static str {
    match refusal {
        Refusal::Setup | Refusal::Invalid => FIX,
        Refusal::NotNow => RULES,
        Refusal::Final => NONE,
    }
}
