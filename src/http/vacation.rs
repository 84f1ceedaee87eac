//! The caller's vacation (R10.5): its turn time stops in every game while it is away.

use actix_web::{web, HttpResponse};

use super::extract::Json;
use super::helpers::caller;
use crate::{
    auth::CurrentUser,
    error::ServiceError,
    http::AppState,
    service::vacation::{self, VacationRequest, VacationStatus},
};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/v1/me/vacation")
            .route(web::get().to(get_vacation))
            .route(web::put().to(take_vacation))
            .route(web::delete().to(end_vacation)),
    );
}

/// The caller's vacation, if one is on, and the days this calendar year still allows.
#[utoipa::path(get, path = "/v1/me/vacation", tag = "accounts",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The vacation on now (or null) and this year's allowance", body = VacationStatus),
        (status = 401, description = "`unauthorized`"),
    ))]
pub async fn get_vacation(
    state: web::Data<AppState>,
    user: CurrentUser,
) -> Result<HttpResponse, ServiceError> {
    let caller = caller(&user);
    let status = state.db(move |s| vacation::status(s, &caller)).await?;
    Ok(HttpResponse::Ok().json(status))
}

/// Go on vacation from now (R10.5): for 1 to 14 days (`days`, or `until` a time that far
/// ahead), at most 30 days per calendar year (UTC, counted in whole days begun, in the year a
/// vacation begins), one vacation at a time. While away, the caller's turn time stops in every
/// game: a deadline moves to the vacation's end plus the time that was left, a turn that comes
/// while away gets its whole turn time from the end, no reminder goes out, and the server never
/// moves for the caller's seats. The other players see `away_until` on the caller's seats.
/// Playing while away is allowed and does not end the vacation. Guests may not take one.
#[utoipa::path(put, path = "/v1/me/vacation", tag = "accounts", request_body = VacationRequest,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "The vacation has begun", body = VacationStatus),
        (status = 400, description = "`invalid_json`"),
        (status = 401, description = "`unauthorized`"),
        (status = 403, description = "`vacation_needs_account`: guests may not take a vacation"),
        (status = 409, description = "`already_on_vacation`, `vacation_allowance_exhausted` (30 days a year)"),
        (status = 422, description = "`invalid_body` (neither or both of days and until), `vacation_too_short` (under 1 day), `vacation_too_long` (over 14 days)"),
    ))]
pub async fn take_vacation(
    state: web::Data<AppState>,
    user: CurrentUser,
    body: Json<VacationRequest>,
) -> Result<HttpResponse, ServiceError> {
    let (caller, guest, body) = (caller(&user), user.guest, body.into_inner());
    let status = state
        .db(move |s| vacation::take(s, &caller, guest, &body))
        .await?;
    Ok(HttpResponse::Created().json(status))
}

/// Come back early (R10.5): every deadline moves back by the time not spent away, so each
/// clock runs on with the time it had left; the days not begun return to this year's
/// allowance.
#[utoipa::path(delete, path = "/v1/me/vacation", tag = "accounts",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The vacation has ended; the allowance now", body = VacationStatus),
        (status = 401, description = "`unauthorized`"),
        (status = 404, description = "`vacation_not_found`: the caller is not on vacation"),
    ))]
pub async fn end_vacation(
    state: web::Data<AppState>,
    user: CurrentUser,
) -> Result<HttpResponse, ServiceError> {
    let caller = caller(&user);
    let status = state.db(move |s| vacation::end(s, &caller)).await?;
    Ok(HttpResponse::Ok().json(status))
}
