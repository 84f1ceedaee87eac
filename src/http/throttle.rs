//! A per-client limit on the endpoints that take credentials or create accounts (sign-in,
//! register, guests, upgrade): each client address has a bucket of `burst` tries that refills
//! at `per_minute`. It slows password guessing and keeps argon2 from eating the CPU. A client
//! over the limit gets 429 `rate_limited` with `Retry-After`.
//!
//! The buckets live in the process: with several server processes, each allows the rate.

use std::{
    collections::HashMap,
    net::IpAddr,
    sync::Mutex,
    time::{Duration, Instant},
};

use actix_web::{
    body::{EitherBody, MessageBody},
    dev::{ServiceRequest, ServiceResponse},
    middleware::Next,
    web, Error, HttpRequest, ResponseError,
};

use crate::{error::ServiceError, http::AppState};

/// Past this many clients, full buckets (clients idle long enough) are forgotten.
const PRUNE_AT: usize = 10_000;

#[derive(Debug)]
pub struct Throttle {
    burst: f64,
    per_second: f64,
    buckets: Mutex<HashMap<IpAddr, Bucket>>,
}

#[derive(Clone, Copy, Debug)]
struct Bucket {
    tries: f64,
    at: Instant,
}

impl Throttle {
    /// None when `per_minute` is 0 (no limit).
    pub fn new(burst: u32, per_minute: u32) -> Option<Throttle> {
        (per_minute > 0).then(|| Throttle {
            burst: f64::from(burst.max(1)),
            per_second: f64::from(per_minute) / 60.0,
            buckets: Mutex::new(HashMap::new()),
        })
    }

    /// Takes one try from `client`'s bucket, or says how long until one is back.
    pub fn take(&self, client: IpAddr, now: Instant) -> Result<(), Duration> {
        // A panic while holding the lock leaves counts at worst a little off: keep going.
        let mut buckets = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        if buckets.len() >= PRUNE_AT {
            buckets.retain(|_, b| self.refilled(*b, now) < self.burst);
        }
        let bucket = buckets.entry(client).or_insert(Bucket {
            tries: self.burst,
            at: now,
        });
        let tries = self.refilled(*bucket, now);
        if tries >= 1.0 {
            *bucket = Bucket {
                tries: tries - 1.0,
                at: now,
            };
            Ok(())
        } else {
            *bucket = Bucket { tries, at: now };
            Err(Duration::from_secs_f64((1.0 - tries) / self.per_second))
        }
    }

    fn refilled(&self, bucket: Bucket, now: Instant) -> f64 {
        let elapsed = now.saturating_duration_since(bucket.at).as_secs_f64();
        (bucket.tries + elapsed * self.per_second).min(self.burst)
    }
}

/// Middleware for the credential routes: refuses the request before its body is read.
pub async fn limit<B: MessageBody>(
    req: ServiceRequest,
    next: Next<B>,
) -> Result<ServiceResponse<EitherBody<B>>, Error> {
    if let Some(state) = req.app_data::<web::Data<AppState>>() {
        if let (Some(throttle), Some(client)) =
            (&state.throttle, client_address(req.request(), state))
        {
            if let Err(wait) = throttle.take(client, Instant::now()) {
                let refusal = ServiceError::rate_limited(wait).error_response();
                return Ok(req.into_response(refusal).map_into_right_body());
            }
        }
    }
    Ok(next.call(req).await?.map_into_left_body())
}

/// The peer's address; behind a proxy (configured), the last `X-Forwarded-For` entry, which
/// is the one the proxy added (earlier entries come from the client and can be forged).
pub(crate) fn client_address(req: &HttpRequest, state: &AppState) -> Option<IpAddr> {
    if state.config.behind_proxy {
        let forwarded = req
            .headers()
            .get_all("x-forwarded-for")
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .last()
            .and_then(|ip| ip.trim().parse().ok());
        if forwarded.is_some() {
            return forwarded;
        }
    }
    req.peer_addr().map(|a| a.ip())
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALICE: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(192, 0, 2, 1));
    const BOB: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(192, 0, 2, 2));

    #[test]
    fn a_burst_is_allowed_then_the_client_waits_for_the_refill() {
        let throttle = Throttle::new(3, 60).expect("a limit");
        let t0 = Instant::now();
        for _ in 0..3 {
            assert_eq!(throttle.take(ALICE, t0), Ok(()));
        }
        let wait = throttle.take(ALICE, t0).expect_err("over the burst");
        assert!(wait > Duration::from_millis(900) && wait <= Duration::from_secs(1));
        // Another client has a bucket of its own.
        assert_eq!(throttle.take(BOB, t0), Ok(()));
        // One try per second comes back.
        assert_eq!(throttle.take(ALICE, t0 + Duration::from_secs(1)), Ok(()));
        assert!(throttle.take(ALICE, t0 + Duration::from_secs(1)).is_err());
        // An idle client gets the whole burst back, never more.
        let later = t0 + Duration::from_secs(3600);
        for _ in 0..3 {
            assert_eq!(throttle.take(ALICE, later), Ok(()));
        }
        assert!(throttle.take(ALICE, later).is_err());
    }

    #[test]
    fn zero_per_minute_means_no_limit() {
        assert!(Throttle::new(5, 0).is_none());
    }

    #[test]
    fn idle_clients_are_forgotten_when_there_are_many() {
        let throttle = Throttle::new(2, 60).expect("a limit");
        let t0 = Instant::now();
        for i in 0..PRUNE_AT as u32 {
            let ip = IpAddr::V4(std::net::Ipv4Addr::from(i));
            assert_eq!(throttle.take(ip, t0), Ok(()));
        }
        assert_eq!(throttle.take(ALICE, t0 + Duration::from_secs(10)), Ok(()));
        let left = throttle.buckets.lock().expect("lock").len();
        assert_eq!(left, 1, "only the client that just tried is kept");
    }
}
