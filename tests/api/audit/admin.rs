//! The admin's audit queries: 403 for others, filters, cursor paging, R8 for admins too.

use reqwest::StatusCode;
use serde_json::{json, Value};

use racko_rules::Card;

use super::{account, act, admin, deck, get, stacked_game, Who};
use crate::common::app::{assert_problem, TestApp};
use crate::common::json::{assert_withheld, field};

/// Every page of `path` (which has a `?`), following `next_cursor`; (events, pages).
async fn all_pages(app: &TestApp, who: &Who, path: &str) -> (Vec<Value>, usize) {
    let (mut events, mut pages, mut cursor) = (Vec::new(), 0, None::<String>);
    loop {
        let url = match &cursor {
            Some(c) => format!("{path}&cursor={c}"),
            None => path.to_string(),
        };
        let page = get(app, who, &url).await;
        pages += 1;
        events.extend(page["events"].as_array().expect("events").iter().cloned());
        match page["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => return (events, pages),
        }
    }
}

fn key(e: &Value) -> (String, String, i64) {
    let at = e["at"].as_str().unwrap_or_default().to_string();
    let game = e["game_id"].as_str().unwrap_or_default().to_string();
    (at, game, e["seq"].as_i64().unwrap_or_default())
}

both_stores! {
    async fn audit_queries_are_for_admins(app: TestApp) {
        let ann = account(&app, "ann").await;
        for path in ["/v1/admin/events", "/v1/admin/players/ann/games"] {
            let res = app.get(path, Some(&ann.token)).await;
            assert_problem(res, StatusCode::FORBIDDEN, "admin_only").await;
            let res = app.get(path, None).await;
            assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
        }
    }

    async fn audit_filters_and_cursors(app: TestApp) {
        let root = admin(&app, "root").await;
        let (ann, bob, carl) = (
            account(&app, "ann").await,
            account(&app, "bob").await,
            account(&app, "carl").await,
        );
        // Stacked, so that bob's first turn is a plain draw (a random start card may be an
        // event card that he must carry out first).
        let racks = [
            [1, 5, 9, 13, 17, 21, 25, 29, 33, 37, 41, 4],
            [2, 6, 10, 14, 18, 22, 26, 30, 34, 38, 42, 3],
        ];
        let plain = [Card::Number { value: 47 }, Card::Number { value: 48 }];
        let first = stacked_game(&app, &ann, &bob, 500, &[deck(racks, 1, &plain)]).await;
        act(&app, &bob, &first, json!({"type": "draw"})).await;
        let second = stacked_game(&app, &bob, &carl, 500, &[]).await;

        // Everything, in one page and in pages of 3: the same events, in (at, game, seq) order.
        let everything = get(&app, &root, "/v1/admin/events?limit=500").await;
        let everything = everything["events"].as_array().expect("events").clone();
        assert!(everything.len() > 10);
        let mut sorted = everything.clone();
        sorted.sort_by_key(key);
        assert_eq!(sorted, everything, "ordered by (at, game_id, seq)");
        let (paged, pages) = all_pages(&app, &root, "/v1/admin/events?limit=3").await;
        assert_eq!(paged, everything);
        assert_eq!(pages, everything.len().div_ceil(3));

        // By player, by name or id: only events that player caused.
        let by_name = get(&app, &root, "/v1/admin/events?player=bob").await;
        let bob_id = by_name["events"][0]["actor"]["id"].as_str().expect("an event of bob").to_string();
        let by_id = get(&app, &root, &format!("/v1/admin/events?player={bob_id}")).await;
        assert_eq!(by_name, by_id);
        let bobs = by_name["events"].as_array().expect("events");
        assert!(bobs.iter().all(|e| e["actor"]["username"] == "bob"));
        assert!(bobs.iter().any(|e| e["kind"] == "drew"));
        assert!(bobs.iter().any(|e| e["game_id"] == second.as_str()));

        // By kind and game together, paged by one.
        let path = format!("/v1/admin/events?kind=player_joined&game={first}&limit=1");
        let (joined, pages) = all_pages(&app, &root, &path).await;
        assert_eq!(joined.len(), 2);
        assert_eq!(pages, 2);
        assert!(joined.iter().all(|e| e["kind"] == "player_joined" && e["game_id"] == first.as_str()));

        // By time: from the second game's first event on, only that game's events.
        let start = everything.iter().find(|e| e["game_id"] == second.as_str()).expect("second game");
        let from = start["at"].as_str().expect("at");
        let later = get(&app, &root, &format!("/v1/admin/events?from={}", urlencode(from))).await;
        let later = later["events"].as_array().expect("events");
        assert!(later.iter().all(|e| e["at"].as_str() >= Some(from)));
        assert!(later.iter().any(|e| e["game_id"] == second.as_str()));
        let before = get(&app, &root, &format!("/v1/admin/events?to={}", urlencode(from))).await;
        assert!(before["events"].as_array().expect("events").iter().all(|e| e["game_id"] != second.as_str()));

        // R8 holds for admins: the running rounds' dealt racks stay hidden.
        let dealt = get(&app, &root, &format!("/v1/admin/events?kind=dealt&game={second}")).await;
        assert_eq!(field(&dealt, "events.0.event.racks"), &json!([null, null]));

        // A player's history, newest first, paged.
        let history = get(&app, &root, "/v1/admin/players/bob/games?limit=1").await;
        assert_eq!(history["player"]["username"], "bob");
        assert_eq!(history["games"][0]["game_id"], second.as_str());
        assert_eq!(history["games"][0]["seat"], 0);
        let cursor = history["next_cursor"].as_str().expect("a second page");
        let next = get(&app, &root, &format!("/v1/admin/players/{bob_id}/games?limit=1&cursor={cursor}")).await;
        assert_eq!(next["games"][0]["game_id"], first.as_str());
        assert_eq!(next["games"][0]["seat"], 1);
        assert_eq!(next["games"][0]["status"], "active");
        assert_withheld(&next, "next_cursor", "the last page");

        // Bad input.
        for (path, code) in [
            ("/v1/admin/events?cursor=zz", "invalid_cursor"),
            ("/v1/admin/events?limit=0", "invalid_limit"),
            ("/v1/admin/events?from=2030-01-01T00:00:00Z&to=2020-01-01T00:00:00Z", "invalid_time_range"),
            ("/v1/admin/events?from=yesterday", "invalid_query"),
            ("/v1/admin/players/ann/games?cursor=00", "invalid_cursor"),
        ] {
            let res = app.get(path, Some(&root.token)).await;
            assert_problem(res, StatusCode::BAD_REQUEST, code).await;
        }
        for path in ["/v1/admin/events?player=nobody", "/v1/admin/players/nobody/games"] {
            let res = app.get(path, Some(&root.token)).await;
            assert_problem(res, StatusCode::NOT_FOUND, "player_not_found").await;
        }
    }
}

/// RFC 3339 times hold `+` and `:`; `+` must be escaped in a query string.
fn urlencode(text: &str) -> String {
    text.replace('+', "%2B").replace(':', "%3A")
}
