//! The HTTP edge: routes, extractor error handling, request observation and the API document.
//! Handlers parse, authorize, call one function and map its result; nothing else.
//!
//! Routes are registered as `web::resource(path).route(web::get().to(handler))` so that a
//! wrong method on a known path answers 405 (with `Allow`), not 404.

pub mod accounts;
pub mod audit;
pub mod caller;
pub mod chat;
pub mod clock;
pub mod cors;
pub mod devices;
pub mod errors;
pub mod extract;
pub mod friends;
pub mod games;
pub mod helpers;
pub mod invitations;
pub mod lobby;
pub mod observe;
pub mod openapi;
pub mod ops;
pub mod problem;
pub mod ratings;
pub mod seeks;
pub mod sessions;
pub mod socket;
mod state;
pub mod stream;
pub mod throttle;
pub mod vacation;
pub mod web;
pub mod webhooks;

pub use state::AppState;

/// Every route of the API. Extractor configs are added by `extract::configure`.
pub fn configure(cfg: &mut actix_web::web::ServiceConfig) {
    ops::configure(cfg);
    accounts::configure(cfg);
    games::configure(cfg);
    stream::configure(cfg);
    webhooks::configure(cfg);
    devices::configure(cfg);
    lobby::configure(cfg);
    invitations::configure(cfg);
    friends::configure(cfg);
    seeks::configure(cfg);
    chat::configure(cfg);
    ratings::configure(cfg);
    vacation::configure(cfg);
    audit::configure(cfg);
    clock::configure(cfg);
    openapi::configure(cfg);
    web::configure(cfg);
    cfg.default_service(actix_web::web::to(observe::not_found));
}
