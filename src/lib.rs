//! The Racko game server: an HTTP API (actix-web) over a store (PostgreSQL or embedded SQLite),
//! with every game action applied by the pure rules crate `racko_rules` in one transaction.
//!
//! Data flows one way: request → `http` (parse, authorize) → `service` (one transaction) →
//! `racko_rules` → events → `store` → response.

pub mod app;
pub mod auth;
pub mod blocking;
pub mod config;
pub mod error;
pub mod http;
pub mod metrics;
pub mod notify;
pub mod service;
pub mod store;
pub mod telemetry;
pub mod workers;
