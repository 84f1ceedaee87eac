//! When a push waits, and how its answers are read.

use chrono::TimeZone;

use super::*;
use crate::store::{Device, NewDevice};

fn push(quiet: Option<(i32, i32)>, utc_offset: i32) -> ClaimedPush {
    ClaimedPush {
        id: "push_0".into(),
        device: Device {
            id: uuid::Uuid::new_v4(),
            created_at: Utc::now(),
            device: NewDevice {
                account_id: uuid::Uuid::new_v4(),
                provider: "fcm".into(),
                address: "t".into(),
                p256dh: None,
                auth: None,
                topic: None,
                sandbox: false,
                kinds: vec!["your_turn".into()],
                language: "en".into(),
                quiet,
                utc_offset,
            },
        },
        body: serde_json::Value::Null,
        attempts: 0,
        created_at: Utc::now(),
        deadline: None,
    }
}

#[test]
fn quiet_hours_hold_pushes_until_they_end_in_the_devices_day() {
    let at = |h, m| {
        Utc.with_ymd_and_hms(2026, 12, 2, h, m, 0)
            .single()
            .expect("a time")
    };
    // 22:00-07:00 at UTC+1: 21:30 UTC is 22:30 there, quiet until 06:00 UTC.
    let night = push(Some((22 * 60, 7 * 60)), 60);
    let until = quiet_until(&night, at(21, 30)).expect("quiet");
    assert_eq!(until, at(21, 30) + chrono::Duration::minutes(8 * 60 + 30));
    assert_eq!(quiet_until(&night, at(12, 0)), None);
    assert_eq!(quiet_until(&push(None, 0), at(23, 0)), None);
    // A span within one day.
    let lunch = push(Some((12 * 60, 13 * 60)), 0);
    assert_eq!(quiet_until(&lunch, at(12, 15)), Some(at(13, 0)));
}

#[test]
fn a_retry_waits_at_least_retry_after_and_ends_at_the_deadline() {
    let settings = crate::config::PushConfig::default();
    let now = Utc::now();
    let mut p = push(None, 0);
    p.created_at = now;
    let later = next_try(&settings, &p, Some(Duration::from_secs(120)), now).expect("a retry");
    assert!(later - now >= chrono::Duration::seconds(120));
    let first = next_try(&settings, &p, None, now).expect("a retry");
    assert!(first - now <= chrono::Duration::milliseconds(6250));
    p.deadline = Some(now + chrono::Duration::seconds(2));
    assert_eq!(
        next_try(&settings, &p, None, now),
        None,
        "past the deadline"
    );
}

#[test]
fn retry_after_reads_seconds_and_dates() {
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(reqwest::header::RETRY_AFTER, "7".parse().expect("a value"));
    assert_eq!(retry_after(&headers), Some(Duration::from_secs(7)));
    let date = (Utc::now() + chrono::Duration::seconds(90)).to_rfc2822();
    headers.insert(reqwest::header::RETRY_AFTER, date.parse().expect("a value"));
    let wait = retry_after(&headers).expect("a wait");
    assert!(wait > Duration::from_secs(80) && wait <= Duration::from_secs(90));
}
