//! Blocking work (diesel is synchronous) off the async workers.

use crate::error::ServiceError;

/// Runs `f` with `on` (the store, or the service over it) on the blocking thread pool:
/// `blocking(&store, move |s| s.account(id)).await?`.
pub async fn blocking<S, T, E, F>(on: &S, f: F) -> Result<T, ServiceError>
where
    S: Clone + Send + 'static,
    F: FnOnce(&S) -> Result<T, E> + Send + 'static,
    T: Send + 'static,
    E: Into<ServiceError> + Send + 'static,
{
    let on = on.clone();
    actix_web::web::block(move || f(&on))
        .await
        .map_err(ServiceError::internal)?
        .map_err(Into::into)
}
