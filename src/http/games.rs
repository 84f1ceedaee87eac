//! Placeholder: the game API owns this file and registers its routes here.

use actix_web::web;

pub fn configure(_cfg: &mut web::ServiceConfig) {}
