//! Operations endpoints: liveness, readiness (one database round trip) and Prometheus metrics.

use actix_web::{web, HttpResponse};
use serde::Serialize;
use utoipa::ToSchema;

use crate::{app::AppState, error::ApiError};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/healthz").route(web::get().to(healthz)))
        .service(web::resource("/readyz").route(web::get().to(readyz)))
        .service(web::resource("/metrics").route(web::get().to(metrics)));
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Health {
    /// Always `ok`.
    #[schema(example = "ok")]
    pub status: String,
}

fn ok() -> web::Json<Health> {
    web::Json(Health {
        status: "ok".to_string(),
    })
}

/// Liveness: the process answers.
#[utoipa::path(get, path = "/healthz", tag = "ops",
    responses((status = 200, description = "The server is up", body = Health)))]
pub async fn healthz() -> web::Json<Health> {
    ok()
}

/// Readiness: the store answers.
#[utoipa::path(get, path = "/readyz", tag = "ops", responses(
    (status = 200, description = "The store is reachable", body = Health),
    (status = 503, description = "The store is not reachable (`not_ready`)"),
))]
pub async fn readyz(state: web::Data<AppState>) -> Result<web::Json<Health>, ApiError> {
    match state.db(|s| s.ping()).await {
        Ok(()) => Ok(ok()),
        Err(e) => {
            tracing::warn!(error = %e, "readiness check failed");
            Err(ApiError::new(
                actix_web::http::StatusCode::SERVICE_UNAVAILABLE,
                "not_ready",
                "the store is not reachable",
            ))
        }
    }
}

/// Prometheus metrics in the text exposition format.
#[utoipa::path(get, path = "/metrics", tag = "ops", responses(
    (status = 200, description = "Prometheus text format", body = String, content_type = "text/plain"),
))]
pub async fn metrics(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let text = state.metrics.render().map_err(ApiError::internal)?;
    Ok(HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .body(text))
}
