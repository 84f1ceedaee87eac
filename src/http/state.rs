//! What every handler gets, as `web::Data<AppState>`.

use std::sync::Arc;

use super::throttle::Throttle;
use crate::auth::TokenKeys;
use crate::blocking::blocking;
use crate::config::Config;
use crate::error::ServiceError;
use crate::metrics::Metrics;
use crate::notify::slots::Slots;
use crate::service::Service;

pub struct AppState {
    pub service: Service,
    pub config: Arc<Config>,
    pub tokens: TokenKeys,
    pub metrics: Metrics,
    /// The limit on the credential endpoints; None when turned off.
    pub throttle: Option<Throttle>,
    /// The open streams and long-polls of this process, bounded.
    pub streams: Arc<Slots>,
}

impl AppState {
    /// Runs blocking service or store work (diesel is synchronous) on the blocking thread
    /// pool: `state.db(move |s| s.account(id)).await?`.
    pub async fn db<T, E, F>(&self, f: F) -> Result<T, ServiceError>
    where
        F: FnOnce(&Service) -> Result<T, E> + Send + 'static,
        T: Send + 'static,
        E: Into<ServiceError> + Send + 'static,
    {
        blocking(&self.service, f).await
    }
}
