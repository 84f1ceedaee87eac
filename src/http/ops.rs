//! Operations endpoints: liveness, readiness (one database round trip) and Prometheus metrics.

use actix_web::{web, HttpRequest, HttpResponse};
use serde::Serialize;
use utoipa::ToSchema;

use crate::{
    error::{Code, ServiceError},
    http::caller::bearer_token,
    http::AppState,
};

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
pub async fn readyz(state: web::Data<AppState>) -> Result<web::Json<Health>, ServiceError> {
    match state.db(|s| s.ping()).await {
        Ok(()) => Ok(ok()),
        Err(e) => {
            tracing::warn!(error = %e, "readiness check failed");
            Err(ServiceError::new(
                Code::NotReady,
                "the store is not reachable",
            ))
        }
    }
}

/// Prometheus metrics in the text exposition format. When the server has a metrics token
/// (`RACKO_METRICS_TOKEN`), the scraper sends it as `Authorization: Bearer <token>`.
#[utoipa::path(get, path = "/metrics", tag = "ops", responses(
    (status = 200, description = "Prometheus text format", body = String, content_type = "text/plain"),
    (status = 401, description = "`unauthorized`: the server has a metrics token and the request does not carry it"),
))]
pub async fn metrics(
    state: web::Data<AppState>,
    req: HttpRequest,
) -> Result<HttpResponse, ServiceError> {
    if let Some(expected) = &state.config.metrics_token {
        let given = bearer_token(&req).unwrap_or("");
        if !same_secret(given.as_bytes(), expected.expose().as_bytes()) {
            return Err(ServiceError::unauthorized(
                "/metrics needs the metrics token",
            ));
        }
    }
    state.metrics.db_statements(state.service.statements());
    state.metrics.game_decisions(state.service.decisions());
    state.metrics.shared_commits(state.service.shared_commits());
    let at = state.service.now();
    let backlog = state.db(move |s| s.backlog(at)).await?;
    let replica = state
        .db(|s| Ok::<_, ServiceError>(s.replica_reads()))
        .await?;
    if let Some(reads) = replica {
        state.metrics.replica(&reads);
    }
    state.metrics.observe_now(&crate::metrics::Now {
        at,
        streams_open: state.streams.open(),
        pool: state.service.pool_usage(),
        backlog,
    });
    let text = state.metrics.render().map_err(ServiceError::internal)?;
    Ok(HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .body(text))
}

/// Compares in time that depends on the lengths only, so timing does not reveal a prefix.
fn same_secret(given: &[u8], expected: &[u8]) -> bool {
    given.len() == expected.len()
        && given
            .iter()
            .zip(expected)
            .fold(0u8, |diff, (a, b)| diff | (a ^ b))
            == 0
}

#[cfg(test)]
mod tests {
    use super::same_secret;

    #[test]
    fn secrets_match_only_when_equal() {
        assert!(same_secret(b"abc", b"abc"));
        assert!(!same_secret(b"abd", b"abc"));
        assert!(!same_secret(b"ab", b"abc"));
        assert!(!same_secret(b"", b"abc"));
    }
}
