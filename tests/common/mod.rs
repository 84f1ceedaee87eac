//! Shared test support: a fresh database per test (`db`, the store's), the real server on a
//! random port (`app`), and strict reading of JSON answers (`json`).
#![allow(dead_code)] // each test module uses a part of it

#[macro_use]
pub mod app;
pub mod autoctl;
pub mod cluster;
pub mod db;
pub mod json;
pub mod process;
pub mod replicated;
