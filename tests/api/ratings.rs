//! Ratings over real HTTP, on each store: a rated game's end moves its players' ratings as
//! Weng-Lin says (checked against a direct `skillratings` call) and logs each change; casual
//! games move none; every stored rating is recomputed from the exported games; the leaderboard
//! pages and filters; stats match the games played; guests and computers stay casual; seeks
//! pair by real ratings and pass `rated` to their game.

use std::collections::HashMap;

use racko_bots::{decide, Level};
use racko_rules::View;
use reqwest::StatusCode;
use serde_json::{json, Value};
use skillratings::weng_lin::{weng_lin_multi_team, WengLinConfig, WengLinRating};
use skillratings::MultiTeamOutcome;

use crate::common::app::{assert_problem, json_body, TestApp};
use crate::seeks::seek;

both_stores!(
    rated_games_move_ratings_as_weng_lin_says_and_casual_ones_do_not,
    every_stored_rating_is_recomputed_from_the_exported_games,
    guests_and_computers_play_casual_games_only,
    seeks_pair_by_real_ratings_and_pass_rated_to_the_game,
);

struct Player {
    token: String,
    name: String,
}

async fn players(app: &TestApp, prefix: &str, n: usize) -> Vec<Player> {
    let mut all = Vec::new();
    for i in 0..n {
        let name = format!("{prefix}{i}");
        let (token, _) = app.register(&name).await;
        all.push(Player { token, name });
    }
    all
}

/// A game of `seated` (the first creates it, the others join in order): its id.
async fn game_of(app: &TestApp, seated: &[&Player], options: Value, rated: bool) -> String {
    let body = json!({ "options": options, "rated": rated, "visibility": "public" });
    let created = json_body(
        app.post_json("/v1/games", Some(&seated[0].token), &body)
            .await,
        StatusCode::CREATED,
    )
    .await;
    assert_eq!(created["rated"], rated);
    let id = created["id"].as_str().expect("an id").to_string();
    for player in &seated[1..] {
        let path = format!("/v1/games/{id}/join");
        json_body(
            app.post_json(&path, Some(&player.token), &json!({})).await,
            StatusCode::OK,
        )
        .await;
    }
    id
}

async fn view(app: &TestApp, player: &Player, game: &str) -> Value {
    json_body(
        app.get(&format!("/v1/games/{game}"), Some(&player.token))
            .await,
        StatusCode::OK,
    )
    .await
}

async fn resign(app: &TestApp, player: &Player, game: &str) {
    let version = view(app, player, game).await["version"].clone();
    json_body(
        app.post_json(
            &format!("/v1/games/{game}/resign"),
            Some(&player.token),
            &json!({ "version": version }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
}

/// Plays `game` to its end, each seat choosing with the `basic` level from its own view.
async fn play_out(app: &TestApp, seated: &[&Player], game: &str) {
    for _ in 0..5_000 {
        let mut moved = false;
        for player in seated {
            let seen = view(app, player, game).await;
            if seen["status"] == "finished" {
                return;
            }
            let table: View = serde_json::from_value(seen["table"].clone()).expect("a view");
            let Some(action) = decide(Level::Basic, &table, 0) else {
                continue;
            };
            let res = app
                .post_json(
                    &format!("/v1/games/{game}/actions"),
                    Some(&player.token),
                    &json!({ "version": seen["version"], "action": action }),
                )
                .await;
            // Another seat's off-turn call may have moved the game on: look again.
            if res.status() == StatusCode::OK {
                moved = true;
            }
        }
        assert!(moved, "nobody could move in {game}");
    }
    panic!("{game} did not end");
}

async fn stats(app: &TestApp, asker: &Player, name: &str) -> Value {
    json_body(
        app.get(&format!("/v1/accounts/{name}/stats"), Some(&asker.token))
            .await,
        StatusCode::OK,
    )
    .await
}

async fn export(app: &TestApp, asker: &Player, game: &str) -> Value {
    json_body(
        app.get(&format!("/v1/games/{game}/export"), Some(&asker.token))
            .await,
        StatusCode::OK,
    )
    .await
}

fn shown(r: &WengLinRating) -> i64 {
    (1500.0 + 40.0 * (r.rating - 25.0))
        .round()
        .clamp(0.0, 4000.0) as i64
}

fn pool(options: &Value) -> String {
    if options["partner"] == true {
        "partner_4".into()
    } else {
        format!("standard_{}", options["players"])
    }
}

/// Each seat's side and rank from an export: resigning loses (R10.3), else the higher total
/// (the team's with Partner, R7.1) ranks higher; ties share a rank.
fn standings(doc: &Value) -> Vec<(usize, usize)> {
    let partner = doc["options"]["partner"] == true;
    let seats = doc["players"].as_array().expect("players").len();
    let side = |seat: usize| if partner { seat % 2 } else { seat };
    let sides = if partner { 2 } else { seats };
    let resigned: Vec<usize> = doc["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["kind"] == "resigned")
        .map(|e| e["event"]["seat"].as_u64().expect("a seat") as usize)
        .collect();
    let totals: Vec<u64> = doc["result"]["totals"]
        .as_array()
        .expect("totals")
        .iter()
        .map(|t| t.as_u64().expect("a total"))
        .collect();
    let key = |s: usize| {
        let out = (0..seats).any(|seat| side(seat) == s && resigned.contains(&seat));
        let total: u64 = (0..seats)
            .filter(|seat| side(*seat) == s)
            .map(|seat| totals[seat])
            .sum();
        (out, std::cmp::Reverse(total))
    };
    (0..seats)
        .map(|seat| {
            let better = (0..sides).filter(|o| key(*o) < key(side(seat))).count();
            (side(seat), better + 1)
        })
        .collect()
}

/// Applies one exported rated game to `ratings` (by pool and username), as Weng-Lin says.
fn apply(ratings: &mut HashMap<(String, String), WengLinRating>, doc: &Value) {
    let pool = pool(&doc["options"]);
    let names: Vec<String> = doc["players"]
        .as_array()
        .expect("players")
        .iter()
        .map(|p| p["username"].as_str().expect("a name").to_string())
        .collect();
    let ranks = standings(doc);
    let mut sides: Vec<(usize, usize, Vec<usize>)> = Vec::new();
    for (seat, (side, rank)) in ranks.iter().enumerate() {
        match sides.iter_mut().find(|(s, ..)| s == side) {
            Some((_, _, seats)) => seats.push(seat),
            None => sides.push((*side, *rank, vec![seat])),
        }
    }
    let teams: Vec<Vec<WengLinRating>> = sides
        .iter()
        .map(|(_, _, seats)| {
            seats
                .iter()
                .map(|s| {
                    let key = (pool.clone(), names[*s].clone());
                    ratings.get(&key).copied().unwrap_or_default()
                })
                .collect()
        })
        .collect();
    let ranked: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
        .iter()
        .zip(&sides)
        .map(|(team, (_, rank, _))| (&team[..], MultiTeamOutcome::new(*rank)))
        .collect();
    let after = weng_lin_multi_team(&ranked, &WengLinConfig::new());
    for ((_, _, seats), new) in sides.iter().zip(after) {
        for (seat, rating) in seats.iter().zip(new) {
            ratings.insert((pool.clone(), names[*seat].clone()), rating);
        }
    }
}

/// The stored rating of `name` in `pool` (family and players), from its stats.
fn stored<'a>(stats: &'a Value, pool: &str) -> Option<&'a Value> {
    stats["ratings"]
        .as_array()
        .expect("ratings")
        .iter()
        .find(|r| {
            let family = r["family"].as_str().unwrap_or_default();
            format!("{family}_{}", r["players"]) == pool
        })
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

async fn rated_games_move_ratings_as_weng_lin_says_and_casual_ones_do_not(app: TestApp) {
    let two = players(&app, "duo", 2).await;
    let game = game_of(&app, &[&two[0], &two[1]], json!({ "players": 2 }), true).await;
    resign(&app, &two[0], &game).await;
    let fresh = WengLinRating::new();
    let expected = weng_lin_multi_team(
        &[
            (&[fresh][..], MultiTeamOutcome::new(2)),
            (&[fresh][..], MultiTeamOutcome::new(1)),
        ],
        &WengLinConfig::new(),
    );
    for (player, want) in two.iter().zip(&expected) {
        let stats = stats(&app, &two[0], &player.name).await;
        let rating = stored(&stats, "standard_2").expect("a rating");
        assert!(
            close(rating["mu"].as_f64().unwrap_or(0.0), want[0].rating),
            "{stats}"
        );
        assert!(close(
            rating["sigma"].as_f64().unwrap_or(0.0),
            want[0].uncertainty
        ));
        assert_eq!(rating["rating"], shown(&want[0]));
        assert_eq!(rating["games"], 1);
        assert_eq!(rating["provisional"], true, "one game of ten");
        let log = &stats["rating_history"];
        assert_eq!(log.as_array().map(Vec::len), Some(1), "{stats}");
        assert_eq!(log[0]["game_id"], game.as_str());
        assert_eq!(log[0]["rating_before"], 1500);
        assert_eq!(log[0]["rating_after"], shown(&want[0]));
    }
    let winner = stats(&app, &two[0], &two[1].name).await;
    assert_eq!(winner["rating_history"][0]["rank"], 1);
    assert_eq!(
        (winner["games"].clone(), winner["wins"].clone()),
        (json!(1), json!(1))
    );

    // A casual game counts in the stats, never in a rating.
    let casual = game_of(&app, &[&two[0], &two[1]], json!({ "players": 2 }), false).await;
    resign(&app, &two[1], &casual).await;
    let loser = stats(&app, &two[0], &two[1].name).await;
    assert_eq!(loser["games"], 2);
    assert_eq!(loser["rating_history"].as_array().map(Vec::len), Some(1));
    assert_eq!(stored(&loser, "standard_2").expect("kept")["games"], 1);

    // Three players play a rated game to its end (R6.1): their standings by totals.
    let three = players(&app, "trio", 3).await;
    let seated = [&three[0], &three[1], &three[2]];
    let options = json!({ "players": 3, "target": 60, "turn_time": 86_400 });
    let game = game_of(&app, &seated, options, true).await;
    play_out(&app, &seated, &game).await;
    let doc = export(&app, &three[0], &game).await;
    assert_eq!(doc["rated"], true);
    let mut want = HashMap::new();
    apply(&mut want, &doc);
    let totals = doc["result"]["totals"].clone();
    for (seat, player) in three.iter().enumerate() {
        let stats = stats(&app, &three[0], &player.name).await;
        let rating = stored(&stats, "standard_3").expect("a rating");
        let want = want[&("standard_3".to_string(), player.name.clone())];
        assert!(
            close(rating["mu"].as_f64().unwrap_or(0.0), want.rating),
            "{stats} {doc}"
        );
        assert!(close(
            rating["sigma"].as_f64().unwrap_or(0.0),
            want.uncertainty
        ));
        let rounds = doc["rounds"].as_array().map_or(0, Vec::len) as f64;
        let points = totals[seat].as_f64().unwrap_or(0.0);
        assert!(close(
            stats["points_per_round"].as_f64().unwrap_or(-1.0),
            points / rounds
        ));
        let won = doc["result"]["winners"]
            .as_array()
            .expect("winners")
            .contains(&json!(seat));
        assert_eq!(stats["wins"], i64::from(won));
        let events = doc["events"].as_array().expect("events");
        let called = events
            .iter()
            .filter(|e| e["kind"] == "racko_called" && e["actor_seat"] == json!(seat))
            .count();
        assert_eq!(stats["rackos_called"], called, "R4.2 calls of seat {seat}");
    }
}

async fn every_stored_rating_is_recomputed_from_the_exported_games(app: TestApp) {
    // About 10 s in a debug build on either store.
    let games = 400;
    let all = players(&app, "arena", 6).await;
    let started = std::time::Instant::now();
    let mut played = Vec::new();
    let mut tally: HashMap<String, (i64, i64)> = HashMap::new();
    // A fixed walk over the accounts: every game its own table, loser and partners.
    let mut turn = 7usize;
    let mut next = |n: usize| {
        turn = (turn * 31 + 17) % 1009;
        turn % n
    };
    for i in 0..games {
        let partner = i % 4 == 3;
        let n = if partner { 4 } else { 2 };
        let mut seated: Vec<&Player> = Vec::new();
        while seated.len() < n {
            let p = &all[next(all.len())];
            if !seated.iter().any(|s| s.name == p.name) {
                seated.push(p);
            }
        }
        let options = if partner {
            json!({ "players": 4, "partner": true })
        } else {
            json!({ "players": 2 })
        };
        let game = game_of(&app, &seated, options, true).await;
        let quitter = next(n);
        resign(&app, seated[quitter], &game).await;
        for (seat, p) in seated.iter().enumerate() {
            let lost = seat == quitter || (partner && seat % 2 == quitter % 2);
            let entry = tally.entry(p.name.clone()).or_default();
            *entry = (entry.0 + 1, entry.1 + i64::from(!lost));
        }
        played.push(game);
    }
    // The exports, in the order the games ended.
    let mut docs = Vec::new();
    for game in &played {
        docs.push(export(&app, &all[0], game).await);
    }
    let ended = |doc: &Value| {
        let events = doc["events"].as_array().expect("events");
        let end = events
            .iter()
            .find(|e| e["kind"] == "game_ended")
            .expect("ended");
        let at = end["at"].as_str().expect("a time");
        chrono::DateTime::parse_from_rfc3339(at).expect("RFC 3339")
    };
    docs.sort_by_key(|d| ended(d));
    let mut ratings = HashMap::new();
    for doc in &docs {
        assert_eq!(doc["rated"], true);
        apply(&mut ratings, doc);
    }
    for player in &all {
        let stats = stats(&app, &all[0], &player.name).await;
        for pool in ["standard_2", "partner_4"] {
            let key = (pool.to_string(), player.name.clone());
            match (ratings.get(&key), stored(&stats, pool)) {
                (None, None) => {}
                (Some(want), Some(got)) => {
                    assert!(
                        close(got["mu"].as_f64().unwrap_or(0.0), want.rating),
                        "{key:?}"
                    );
                    assert!(close(
                        got["sigma"].as_f64().unwrap_or(0.0),
                        want.uncertainty
                    ));
                    assert_eq!(got["rating"], shown(want), "{key:?}");
                }
                (want, got) => panic!("{key:?}: recomputed {want:?}, stored {got:?}"),
            }
        }
        let (games, wins) = tally[&player.name];
        assert_eq!(
            (stats["games"].as_i64(), stats["wins"].as_i64()),
            (Some(games), Some(wins))
        );
    }
    eprintln!(
        "{games} rated games played and recomputed in {:?}",
        started.elapsed()
    );
    leaderboard_pages_and_filters(&app, &all, &ratings).await;
}

/// The standard_2 leaderboard lists everyone with 10 games or more, highest first, page by
/// page; partner has its own; bad queries get their codes.
async fn leaderboard_pages_and_filters(
    app: &TestApp,
    all: &[Player],
    ratings: &HashMap<(String, String), WengLinRating>,
) {
    let token = Some(all[0].token.as_str());
    let mut want: Vec<(i64, String)> = ratings
        .iter()
        .filter(|((pool, _), _)| pool == "standard_2")
        .map(|((_, name), r)| (shown(r), name.clone()))
        .collect();
    want.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut got = Vec::new();
    let mut path = "/v1/leaderboard?limit=2".to_string();
    loop {
        let page = json_body(app.get(&path, token).await, StatusCode::OK).await;
        for entry in page["entries"].as_array().expect("entries") {
            assert_eq!(entry["position"], got.len() + 1);
            got.push((
                entry["rating"].as_i64().unwrap_or(0),
                entry["username"].to_string(),
            ));
        }
        match page["next_offset"].as_i64() {
            Some(offset) => path = format!("/v1/leaderboard?limit=2&offset={offset}"),
            None => break,
        }
    }
    let ratings_only = |v: &[(i64, String)]| v.iter().map(|e| e.0).collect::<Vec<_>>();
    assert_eq!(ratings_only(&got), ratings_only(&want), "{got:?}");
    let partner = json_body(
        app.get("/v1/leaderboard?family=partner", token).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(partner["players"], 4);
    assert!(
        partner["entries"].as_array().is_some_and(|e| !e.is_empty()),
        "{partner}"
    );
    let none = json_body(
        app.get("/v1/leaderboard?players=2&min_games=10000", token)
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(none["entries"], json!([]));
    for (query, status, code) in [
        ("players=5", StatusCode::BAD_REQUEST, "invalid_leaderboard"),
        (
            "family=partner&players=2",
            StatusCode::BAD_REQUEST,
            "invalid_leaderboard",
        ),
        (
            "min_games=3",
            StatusCode::BAD_REQUEST,
            "invalid_leaderboard",
        ),
        ("offset=-1", StatusCode::BAD_REQUEST, "invalid_leaderboard"),
        ("limit=0", StatusCode::BAD_REQUEST, "invalid_limit"),
        ("family=chess", StatusCode::BAD_REQUEST, "invalid_query"),
    ] {
        let res = app.get(&format!("/v1/leaderboard?{query}"), token).await;
        assert_problem(res, status, code).await;
    }
    let res = app.get("/v1/accounts/nobody-at-all/stats", token).await;
    assert_problem(res, StatusCode::NOT_FOUND, "player_not_found").await;

    // A deleted account leaves the leaderboard; its log stays (it names no one).
    let gone = &all[all.len() - 1];
    let res = app
        .request(
            reqwest::Method::DELETE,
            "/v1/accounts/me",
            Some(&gone.token),
        )
        .json(&json!({ "password": crate::common::app::TEST_PASSWORD }))
        .send()
        .await
        .expect("answered");
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    let board = json_body(
        app.get("/v1/leaderboard?limit=100", token).await,
        StatusCode::OK,
    )
    .await;
    let listed = board["entries"].as_array().expect("entries");
    assert_eq!(listed.len() + 1, got.len(), "{board}");
    assert!(listed.iter().all(|e| e["username"] != gone.name.as_str()));
}

async fn guests_and_computers_play_casual_games_only(app: TestApp) {
    let (guest, _) = app.guest().await;
    let rated = json!({ "options": { "players": 2 }, "rated": true, "visibility": "public" });
    let res = app.post_json("/v1/games", Some(&guest), &rated).await;
    assert_problem(res, StatusCode::FORBIDDEN, "rated_needs_account").await;
    let host = &players(&app, "host", 1).await[0];
    let with_computer = json!({
        "options": { "players": 2 }, "rated": true,
        "computer": [{ "seat": 1, "level": "basic" }]
    });
    let res = app
        .post_json("/v1/games", Some(&host.token), &with_computer)
        .await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "rated_with_computer").await;
    let created = json_body(
        app.post_json("/v1/games", Some(&host.token), &rated).await,
        StatusCode::CREATED,
    )
    .await;
    let join = format!("/v1/games/{}/join", created["id"].as_str().expect("an id"));
    let res = app.post_json(&join, Some(&guest), &json!({})).await;
    assert_problem(res, StatusCode::FORBIDDEN, "rated_needs_account").await;
    let code = json!({ "invite_code": created["invite_code"] });
    let res = app.post_json("/v1/games/join", Some(&guest), &code).await;
    assert_problem(res, StatusCode::FORBIDDEN, "rated_needs_account").await;
    // A casual game takes the guest, and a rated seek is refused it.
    let casual = json!({ "options": { "players": 2 }, "visibility": "public" });
    let created = json_body(
        app.post_json("/v1/games", Some(&host.token), &casual).await,
        StatusCode::CREATED,
    )
    .await;
    assert_eq!(created["rated"], false, "casual unless asked");
    let join = format!("/v1/games/{}/join", created["id"].as_str().expect("an id"));
    json_body(
        app.post_json(&join, Some(&guest), &json!({})).await,
        StatusCode::OK,
    )
    .await;
}

async fn seeks_pair_by_real_ratings_and_pass_rated_to_the_game(app: TestApp) {
    let all = players(&app, "seeker", 4).await;
    let (ann, ben, cat, dan) = (&all[0], &all[1], &all[2], &all[3]);
    // Ann beats Ben three times: she rises above 1500, he falls below.
    for _ in 0..3 {
        let game = game_of(&app, &[ann, ben], json!({ "players": 2 }), true).await;
        resign(&app, ben, &game).await;
    }
    let ann_rating = stored(&stats(&app, ann, &ann.name).await, "standard_2").expect("rated")
        ["rating"]
        .as_i64()
        .expect("a number");
    assert!(ann_rating > 1560, "{ann_rating}");
    let options = json!({ "players": 2, "target": 500, "turn_time": 86_400 });
    let ann_seek = seek(&app, &ann.token, &json!({ "options": options })).await;
    assert_eq!(
        ann_seek["rating"], ann_rating,
        "her rating in the pool of the seek"
    );
    let near = json!({ "options": options, "rating_range": { "min": 1450, "max": 1550 } });
    let cat_seek = seek(&app, &cat.token, &near).await;
    assert_eq!(cat_seek["rating"], 1500, "no rated game yet");
    assert_eq!(cat_seek["status"], "open", "Ann is outside Cat's range");
    let dan_seek = seek(&app, &dan.token, &json!({ "options": options })).await;
    assert_eq!(
        dan_seek["status"], "matched",
        "with the oldest compatible seek"
    );
    let game = dan_seek["game_id"].as_str().expect("a game").to_string();
    let seen = view(&app, dan, &game).await;
    let names: Vec<&str> = seen["players"]
        .as_array()
        .expect("players")
        .iter()
        .filter_map(|p| p["username"].as_str())
        .collect();
    assert_eq!(names, ["seeker0", "seeker3"], "Ann's seek, the oldest");
    assert_eq!(seen["rated"], false);

    // A rated seek's game is rated.
    let rated = json!({ "options": options, "rated": true });
    seek(&app, &ben.token, &rated).await;
    let matched = seek(&app, &cat.token, &rated).await;
    assert_eq!(matched["status"], "matched");
    let game = matched["game_id"].as_str().expect("a game").to_string();
    assert_eq!(view(&app, cat, &game).await["rated"], true);
}
