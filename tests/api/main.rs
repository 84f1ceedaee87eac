//! The API over real HTTP, against each store (see `common::app::both_stores!`).

#[macro_use]
#[path = "../common/mod.rs"]
mod common;

mod audit;
mod auth;
mod compression;
mod computer;
mod conditional;
mod cors;
mod deadlines;
mod deadlines_stages;
mod deletion_races;
mod errors;
mod faults;
mod friends;
mod hidden;
mod hint;
mod idempotency;
mod lifecycle;
mod limits;
mod lobby;
mod nodes;
mod notify;
mod openapi;
mod ops;
mod peer_apns;
mod peer_fcm;
mod peer_webpush;
mod play;
mod play_errors;
mod push;
mod push_crash;
mod push_fairness;
mod push_invited;
mod race;
mod receiver;
mod refresh_grace;
mod revocation;
mod round_trips;
mod seek_nodes;
mod seeks;
mod sessions;
mod spec_bodies;
mod spec_examples;
mod spec_truth;
mod sse;
mod stream_limits;
mod stream_sockets;
mod tables;
mod visibility;
mod web_client;
mod webhook_addresses;
mod webhook_stalls;
mod webhooks;
mod write_paths;
