//! Push devices of the caller's account, and the Web Push key a browser subscribes with.

use actix_web::{web, HttpResponse};
use uuid::Uuid;

use super::extract::Json;
use super::helpers::caller;
use crate::{
    auth::CurrentUser,
    error::{Code, ServiceError},
    http::AppState,
    notify::address::Guard,
    service::devices::{self, DeviceList, DeviceRequest, DeviceView, PushDeliveryLog, WebPushKey},
    workers::push,
};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/v1/me/devices")
            .route(web::post().to(register_device))
            .route(web::get().to(list_devices)),
    )
    .service(web::resource("/v1/me/devices/{id}").route(web::delete().to(delete_device)))
    .service(
        web::resource("/v1/me/devices/{id}/deliveries").route(web::get().to(device_deliveries)),
    )
    .service(web::resource("/v1/push/web").route(web::get().to(web_push_key)));
}

/// Register a push device: a Web Push subscription, an APNs device token or an FCM
/// registration token (exactly one). The feed kinds named (default `your_turn`,
/// `deadline_near`, `game_finished`) are pushed to it in its language, outside its quiet
/// hours. Registering the same subscription or token again updates it.
#[utoipa::path(post, path = "/v1/me/devices", tag = "notifications", request_body = DeviceRequest,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "Registered (or updated)", body = DeviceView),
        (status = 401, description = "`unauthorized`"),
        (status = 404, description = "`push_not_configured`: the server has no key for that provider"),
        (status = 409, description = "`too_many_devices`"),
        (status = 422, description = "`invalid_device`, `device_address_refused` (a Web Push endpoint at a loopback, private or other special-purpose address), `invalid_body`"),
    ))]
pub async fn register_device(
    state: web::Data<AppState>,
    user: CurrentUser,
    body: Json<DeviceRequest>,
) -> Result<HttpResponse, ServiceError> {
    let (caller, body) = (caller(&user), body.into_inner());
    let guard = Guard::new(
        state.config.webhooks_allow_private,
        state.config.webhook_lookup.clone(),
    );
    let config = state.config.clone();
    let device = state
        .db(move |store| {
            let providers = push::providers(&config, store);
            devices::register(store, &caller, body, providers, &guard)
        })
        .await?;
    Ok(HttpResponse::Created().json(device))
}

/// The account's push devices, oldest first.
#[utoipa::path(get, path = "/v1/me/devices", tag = "notifications",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The devices", body = DeviceList),
        (status = 401, description = "`unauthorized`"),
    ))]
pub async fn list_devices(
    state: web::Data<AppState>,
    user: CurrentUser,
) -> Result<HttpResponse, ServiceError> {
    let caller = caller(&user);
    let list = state.db(move |store| devices::list(store, &caller)).await?;
    Ok(HttpResponse::Ok().json(list))
}

/// Delete a push device and its pending pushes.
#[utoipa::path(delete, path = "/v1/me/devices/{id}", tag = "notifications",
    params(("id" = Uuid, Path, description = "The device")),
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Deleted"),
        (status = 401, description = "`unauthorized`"),
        (status = 404, description = "`device_not_found`"),
    ))]
pub async fn delete_device(
    state: web::Data<AppState>,
    user: CurrentUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ServiceError> {
    let (caller, id) = (caller(&user), id.into_inner());
    state
        .db(move |store| devices::delete(store, &caller, id))
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// The device's delivery log: each push's status, attempts and the provider's last answer,
/// newest first.
#[utoipa::path(get, path = "/v1/me/devices/{id}/deliveries", tag = "notifications",
    params(("id" = Uuid, Path, description = "The device")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The last 100 pushes", body = PushDeliveryLog),
        (status = 401, description = "`unauthorized`"),
        (status = 404, description = "`device_not_found`"),
    ))]
pub async fn device_deliveries(
    state: web::Data<AppState>,
    user: CurrentUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ServiceError> {
    let (caller, id) = (caller(&user), id.into_inner());
    let log = state
        .db(move |store| devices::deliveries(store, &caller, id))
        .await?;
    Ok(HttpResponse::Ok().json(log))
}

/// The VAPID public key a browser passes to `pushManager.subscribe` as
/// `applicationServerKey`.
#[utoipa::path(get, path = "/v1/push/web", tag = "notifications",
    responses(
        (status = 200, description = "The key", body = WebPushKey),
        (status = 404, description = "`push_not_configured`: this server sends no Web Push"),
    ))]
pub async fn web_push_key(state: web::Data<AppState>) -> Result<HttpResponse, ServiceError> {
    let config = state.config.clone();
    let private = state
        .db(move |store| push::vapid::private_key(&config, store))
        .await?;
    let public = private
        .as_deref()
        .and_then(push::vapid::public_key)
        .ok_or_else(|| {
            ServiceError::new(Code::PushNotConfigured, "this server sends no Web Push")
        })?;
    Ok(HttpResponse::Ok().json(WebPushKey { public_key: public }))
}
