//! Webhook endpoints of the caller's account.

use actix_web::{http::header, web, HttpResponse};
use uuid::Uuid;

use super::extract::Json;
use super::helpers::caller;
use crate::{
    auth::CurrentUser,
    error::ServiceError,
    http::AppState,
    notify::address::Guard,
    service::webhooks::{self, DeliveryLog, WebhookList, WebhookRequest, WebhookSecret},
};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/v1/me/webhooks")
            .route(web::post().to(create_webhook))
            .route(web::get().to(list_webhooks)),
    )
    .service(web::resource("/v1/me/webhooks/{id}").route(web::delete().to(delete_webhook)))
    .service(web::resource("/v1/me/webhooks/{id}/rotate").route(web::post().to(rotate_webhook)))
    .service(
        web::resource("/v1/me/webhooks/{id}/deliveries").route(web::get().to(webhook_deliveries)),
    );
}

/// The secret is shown once: never cached.
fn with_secret(status: actix_web::http::StatusCode, body: &WebhookSecret) -> HttpResponse {
    HttpResponse::build(status)
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(body)
}

/// Register a webhook endpoint: the items of the account feed (all kinds, or those named) are
/// POSTed to it, signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`,
/// `webhook-signature: v1,<base64 HMAC-SHA256>`). The secret is in this answer only.
#[utoipa::path(post, path = "/v1/me/webhooks", tag = "notifications", request_body = WebhookRequest,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "Registered; the signing secret, shown once", body = WebhookSecret),
        (status = 401, description = "`unauthorized`"),
        (status = 409, description = "`too_many_webhooks`"),
        (status = 422, description = "`invalid_webhook_url`, `webhook_address_refused` (a loopback, private, link-local or other special-purpose address), `invalid_webhook_kind`, `invalid_body`"),
    ))]
pub async fn create_webhook(
    state: web::Data<AppState>,
    user: CurrentUser,
    body: Json<WebhookRequest>,
) -> Result<HttpResponse, ServiceError> {
    let (caller, body) = (caller(&user), body.into_inner());
    let guard = Guard::new(
        state.config.webhooks_allow_private,
        state.config.webhook_lookup.clone(),
    );
    let created = state
        .db(move |store| webhooks::create(store, &caller, body, &guard))
        .await?;
    Ok(with_secret(actix_web::http::StatusCode::CREATED, &created))
}

/// The account's webhook endpoints (without their secrets).
#[utoipa::path(get, path = "/v1/me/webhooks", tag = "notifications",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The endpoints, oldest first", body = WebhookList),
        (status = 401, description = "`unauthorized`"),
    ))]
pub async fn list_webhooks(
    state: web::Data<AppState>,
    user: CurrentUser,
) -> Result<HttpResponse, ServiceError> {
    let caller = caller(&user);
    let list = state
        .db(move |store| webhooks::list(store, &caller))
        .await?;
    Ok(HttpResponse::Ok().json(list))
}

/// Delete a webhook endpoint and its pending deliveries.
#[utoipa::path(delete, path = "/v1/me/webhooks/{id}", tag = "notifications",
    params(("id" = Uuid, Path, description = "The endpoint")),
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Deleted"),
        (status = 401, description = "`unauthorized`"),
        (status = 404, description = "`webhook_not_found`"),
    ))]
pub async fn delete_webhook(
    state: web::Data<AppState>,
    user: CurrentUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ServiceError> {
    let (caller, id) = (caller(&user), id.into_inner());
    state
        .db(move |store| webhooks::delete(store, &caller, id))
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// A new signing secret (the old one stops at once); a disabled endpoint is enabled again.
#[utoipa::path(post, path = "/v1/me/webhooks/{id}/rotate", tag = "notifications",
    params(("id" = Uuid, Path, description = "The endpoint")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The new secret, shown once", body = WebhookSecret),
        (status = 401, description = "`unauthorized`"),
        (status = 404, description = "`webhook_not_found`"),
    ))]
pub async fn rotate_webhook(
    state: web::Data<AppState>,
    user: CurrentUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ServiceError> {
    let (caller, id) = (caller(&user), id.into_inner());
    let rotated = state
        .db(move |store| webhooks::rotate(store, &caller, id))
        .await?;
    Ok(with_secret(actix_web::http::StatusCode::OK, &rotated))
}

/// The endpoint's delivery log: each delivery's status, attempts and the receiver's last HTTP
/// status, newest first.
#[utoipa::path(get, path = "/v1/me/webhooks/{id}/deliveries", tag = "notifications",
    params(("id" = Uuid, Path, description = "The endpoint")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The last 100 deliveries", body = DeliveryLog),
        (status = 401, description = "`unauthorized`"),
        (status = 404, description = "`webhook_not_found`"),
    ))]
pub async fn webhook_deliveries(
    state: web::Data<AppState>,
    user: CurrentUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ServiceError> {
    let (caller, id) = (caller(&user), id.into_inner());
    let log = state
        .db(move |store| webhooks::deliveries(store, &caller, id))
        .await?;
    Ok(HttpResponse::Ok().json(log))
}
