//! The Racko game server: an HTTP API (actix-web) over a store (PostgreSQL or embedded SQLite),
//! with every game action applied by the pure rules crate `racko_rules` in one transaction.
//!
//! Data flows one way: request → `http` (parse, authorize) → `service` (one transaction) →
//! `racko_rules` → events → `store` → response.

pub mod accounts;
pub mod app;
pub mod audit;
pub mod auth;
pub mod config;
pub mod error;
pub mod housekeeping;
pub mod http;
pub mod malloc;
pub mod metrics;
pub mod notify;
pub mod push;
pub mod service;
pub mod store;
pub mod sweeper;
pub mod telemetry;
