//! Test mode only: moving the service's clock forward, so that tests reach deadlines (R10.1)
//! without sleeping. A server not in test mode answers 403 `test_mode_disabled`, and test mode
//! is refused in production (`Config::validate`).

use actix_web::{web, HttpResponse};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::extract::Json;
use crate::{
    error::{Code, ServiceError},
    http::AppState,
    workers::sweeper,
};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/v1/test/clock").route(web::post().to(advance_clock)));
}

/// How far to move the clock.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ClockAdvance {
    /// Seconds to move forward: 1 .. 31,536,000 (a year).
    #[schema(minimum = 1, maximum = 31_536_000)]
    pub seconds: u64,
}

/// The service's clock after the move.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct ClockNow {
    pub now: DateTime<Utc>,
    /// How far the clock is ahead of the system's, in seconds.
    pub offset_seconds: f64,
}

const MAX_ADVANCE: u64 = 31_536_000;

/// Test mode only: moves the service's clock forward for every process on this database
/// (each picks it up on its sweeper's next look, within a second), then sweeps the games
/// whose deadlines have passed.
#[utoipa::path(post, path = "/v1/test/clock", tag = "ops",
    request_body = ClockAdvance,
    responses(
        (status = 200, description = "The clock was moved", body = ClockNow),
        (status = 403, description = "`test_mode_disabled`: the server is not in test mode"),
        (status = 422, description = "`invalid_body` (seconds out of range)"),
    ))]
pub async fn advance_clock(
    state: web::Data<AppState>,
    body: Json<ClockAdvance>,
) -> Result<HttpResponse, ServiceError> {
    if !state.config.test_mode {
        return Err(ServiceError::new(
            Code::TestModeDisabled,
            "the clock can be moved only on a server in test mode",
        ));
    }
    let seconds = body.into_inner().seconds;
    if !(1..=MAX_ADVANCE).contains(&seconds) {
        return Err(ServiceError::new(
            Code::InvalidBody,
            format!("seconds must be 1 to {MAX_ADVANCE}"),
        ));
    }
    // From the offset every process shares, not this process's last look at it: a move sent
    // to a process that has not read another's move yet must not take the clock back.
    sweeper::sync_clock(&state.service).await;
    // Seconds are bounded above; repeated moves saturate instead of overflowing.
    let step = i64::try_from(seconds).unwrap_or(0) * 1_000_000;
    let micros = state.service.clock_offset().saturating_add(step);
    state
        .db(move |s| s.put_setting(sweeper::CLOCK_OFFSET_KEY, &micros.to_string()))
        .await?;
    state.service.raise_clock_offset(micros);
    sweeper::sweep_due(&state.service).await;
    Ok(HttpResponse::Ok().json(ClockNow {
        now: state.service.now(),
        offset_seconds: state.service.clock_offset() as f64 / 1e6,
    }))
}
