//! The application: opens the store, resolves the token secret, binds the listener and serves.
//! `main` only loads configuration and telemetry; tests build the same [`Application`] on
//! port 0.

use std::{net::TcpListener, sync::Arc};

use actix_web::{
    dev::{Server, ServerHandle},
    middleware::{from_fn, Compress},
    web, App, HttpServer,
};
use anyhow::Context;

use crate::{
    auth::TokenKeys,
    config::{Config, Secret},
    http::{self, throttle::Throttle, AppState},
    metrics::Metrics,
    service::Service,
    store::Store,
};

pub struct Application {
    port: u16,
    server: Server,
    hub: Arc<crate::notify::Hub>,
}

impl Application {
    pub async fn build(config: Config) -> anyhow::Result<Application> {
        let config = config.validate()?;
        let store = open_store(&config).await?;
        tracing::info!(store = %store.describe(), "store opened");
        let secret = token_secret(&config, &store).await?;
        let tokens = TokenKeys::new(&secret, config.token_ttl).context("token keys")?;
        let metrics = Metrics::new().context("metrics registry")?;

        let listener = TcpListener::bind(&config.bind)
            .with_context(|| format!("cannot listen on {}", config.bind))?;
        let address = listener.local_addr()?;
        let (max_body, shutdown, workers) = (
            config.max_body_bytes,
            config.shutdown_timeout,
            config.workers,
        );
        let throttle = Throttle::new(config.auth_burst, config.auth_per_minute);
        let service = Service::new(store);
        actix_web::rt::spawn(crate::workers::housekeeping::run(
            service.clone(),
            config.idempotency_ttl,
            config.housekeeping_every,
        ));
        actix_web::rt::spawn(crate::workers::webhooks::run(
            service.clone(),
            crate::workers::webhooks::Settings {
                poll: config.webhook_poll,
                timeout: config.webhook_timeout,
                retry_base: config.webhook_retry_base,
                retry_for: config.webhook_retry_for,
                guard: crate::notify::address::Guard::new(
                    config.webhooks_allow_private,
                    config.webhook_lookup.clone(),
                ),
            },
        ));
        actix_web::rt::spawn(crate::workers::push::run(
            service.clone(),
            config.clone(),
            metrics.clone(),
        ));
        actix_web::rt::spawn(crate::workers::sweeper::run(
            service.clone(),
            config.sweep_every,
            config.test_mode,
        ));
        // PostgreSQL: other processes' commits wake this process's streams and long-polls.
        if let Some(relay) = service.relay() {
            let listener = service.listener();
            std::thread::Builder::new()
                .name("racko-wakeups".into())
                .spawn(move || relay.run(&listener))
                .context("cannot start the wake-up listener")?;
        }
        let streams = crate::notify::slots::Slots::new(config.stream_limits);
        let hub = Arc::clone(service.hub());
        let state = web::Data::new(AppState {
            throttle,
            streams,
            service,
            config: Arc::new(config),
            tokens,
            metrics,
        });
        let mut server = HttpServer::new(move || {
            App::new()
                .app_data(state.clone())
                .configure(|cfg| http::extract::configure(cfg, max_body))
                .configure(http::configure)
                // The last `wrap` is the outermost. CORS answers preflights before routing
                // (inside `observe`, so they are logged and counted); compression comes last,
                // on the final answer (problems included), after `observe` has rewritten it.
                .wrap(from_fn(http::cors::cors))
                .wrap(from_fn(http::observe::observe))
                .wrap(Compress::default())
        })
        // Streams bound their socket's kernel buffer (`http::socket`).
        .on_connect(http::socket::remember)
        .listen(listener)?
        // On SIGTERM/SIGINT (`run_until_stopped`) requests in flight finish for this long;
        // streams and long-polls end at once.
        .disable_signals()
        .shutdown_timeout(shutdown.as_secs());
        if let Some(n) = workers {
            server = server.workers(n);
        }
        tracing::info!(%address, "listening");
        Ok(Application {
            port: address.port(),
            server: server.run(),
            hub,
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// To stop the server from outside (tests).
    pub fn handle(&self) -> ServerHandle {
        self.server.handle()
    }

    /// Serves until the server is stopped (SIGTERM/SIGINT, graceful): streams and long-polls
    /// end at once (their clients resume from the log), other requests in flight finish.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        let (handle, hub) = (self.server.handle(), self.hub);
        actix_web::rt::spawn(async move {
            stop_signal().await;
            tracing::info!("stopping: streams closed, requests in flight finish");
            hub.close_streams();
            handle.stop(true).await;
        });
        self.server.await
    }
}

/// SIGTERM or SIGINT; never, when neither can be listened for.
async fn stop_signal() {
    // A signal that cannot be listened for never comes (rather than stopping at once).
    let interrupt = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => {
                tokio::select! {
                    _ = terminate.recv() => {}
                    _ = interrupt => {}
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot listen for SIGTERM");
                interrupt.await;
            }
        }
    }
    #[cfg(not(unix))]
    interrupt.await;
}

async fn open_store(config: &Config) -> anyhow::Result<Store> {
    let (url, pool, waits) = (config.database_url(), config.pool_size, config.db_waits);
    let (lead, replica) = (config.reminder_lead, config.read_replica.clone());
    let store = tokio::task::spawn_blocking(move || {
        let store = Store::open_with(&url, pool, waits)?;
        match replica {
            Some(r) => store.with_replica(&r.url, r.max_lag),
            None => Ok(store),
        }
    })
    .await
    .context("store open task")?
    .context("cannot open the store")?;
    Ok(store.with_reminder_lead(lead))
}

/// The configured secret; in development without one, a secret generated once and kept in the
/// store, so that tokens survive a restart.
async fn token_secret(config: &Config, store: &Store) -> anyhow::Result<Secret> {
    if let Some(secret) = &config.jwt_secret {
        return Ok(secret.clone());
    }
    let store = store.clone();
    let value = tokio::task::spawn_blocking(move || {
        store.setting_or_insert("jwt_secret", || hex::encode(rand::random::<[u8; 32]>()))
    })
    .await
    .context("secret task")?
    .context("cannot read the stored token secret")?;
    tracing::info!("using the token secret kept in the store (development)");
    Ok(Secret::new(value))
}
