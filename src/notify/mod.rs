//! Turn notifications: how a client learns of a change without polling.
//!
//! Everything is fed from the durable logs (a game's event log, an account's feed): a wake-up
//! only says "topic T has entries up to seq S", and whoever waits reads the log after its own
//! position. A lost or merged wake-up therefore delays at worst, never loses or reorders.
//!
//! - [`hub::Hub`]: one per process: a `watch` channel per game and per account. The
//!   service's post-commit step wakes it after each commit; on PostgreSQL one connection per
//!   process (`Store::relay`) also sends those wake-ups to the other processes (`pg_notify`,
//!   after the commit, so never for a rollback) and hands theirs to the service, with a
//!   periodic re-read for what a process killed before it announced its commit left unsaid.
//! - [`sse`]: Server-Sent Events over a bounded channel per connection, with heartbeats.
//! - [`wait`]: long-polling on the same wake-ups.
//! - [`session`]: both end once the token that opened them is revoked; [`slots`]: both are
//!   bounded per account, per address and in all; [`peer`]: a client that hung up is noticed
//!   within a second.
//! - [`signing`] (Standard Webhooks) and [`address`] (no private addresses) for the webhook
//!   worker (`workers::webhooks`).

pub mod address;
pub mod hub;
pub mod peer;
pub mod session;
pub mod signing;
pub mod slots;
pub mod sse;
pub mod wait;

pub use hub::{Hub, Mark, Topic, Wake};
pub use session::Session;
