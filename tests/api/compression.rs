//! Compressed answers (`Accept-Encoding`: gzip, br, zstd): a finished game's export decodes to
//! the plain answer (but for its `exported_at`, the time of each request); problems stay problems; 304 and `ETag` still work.
//! Prints the export's sizes (`cargo test --test api compression -- --nocapture`).

use std::io::Read;

use racko_rules::View;
use reqwest::{header, Response, StatusCode};
use serde_json::{json, Value};

use crate::common::app::{json_body, TestApp};
use crate::tables::{create, join, players, post_action, view, Player};

both_stores!(
    a_finished_games_export_is_compressed_with_each_encoding,
    problems_and_conditional_gets_survive_compression,
);

const ENCODINGS: [&str; 3] = ["gzip", "br", "zstd"];

/// Plays a default two-player game (to 500 points) to its end through HTTP, each player
/// choosing from his own view with the sample player. Returns the game id.
pub async fn finished_game(app: &TestApp, table: &[Player]) -> String {
    let game = create(app, &table[0], &json!({"options": {"players": 2}})).await;
    let id = game["id"].as_str().expect("id").to_string();
    join(app, &table[1], &id).await;
    for _ in 0..20_000 {
        let mut acted = false;
        for who in table {
            let seen = view(app, who, &id).await;
            if seen["status"] == "finished" {
                return id;
            }
            let table_view: View =
                serde_json::from_value(seen["table"].clone()).expect("a view of the table");
            let Some(action) = racko_sample::choose(&table_view) else {
                continue;
            };
            let body = json!({"version": seen["version"], "action": action});
            let res = post_action(app, who, &id, &body).await;
            json_body(res, StatusCode::OK).await;
            acted = true;
        }
        assert!(acted, "nobody could act in game {id}");
    }
    panic!("game {id} did not end");
}

async fn get_encoded(app: &TestApp, who: &Player, path: &str, encoding: &str) -> Response {
    app.request(reqwest::Method::GET, path, who.token())
        .header(header::ACCEPT_ENCODING, encoding)
        .send()
        .await
        .expect("request sent")
}

fn content_encoding(res: &Response) -> Option<String> {
    res.headers()
        .get(header::CONTENT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

fn decode(encoding: &str, bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    match encoding {
        "gzip" => {
            flate2::read::GzDecoder::new(bytes)
                .read_to_end(&mut out)
                .expect("gzip decodes");
        }
        "br" => {
            brotli_decompressor::Decompressor::new(bytes, 4096)
                .read_to_end(&mut out)
                .expect("brotli decodes");
        }
        "zstd" => out = zstd::stream::decode_all(bytes).expect("zstd decodes"),
        other => panic!("no decoder for {other}"),
    }
    out
}

/// The export with its `exported_at` (the time of the request) taken out.
fn without_time(mut doc: Value) -> Value {
    doc.as_object_mut()
        .expect("an object")
        .remove("exported_at")
        .expect("exported_at");
    doc
}

async fn a_finished_games_export_is_compressed_with_each_encoding(app: TestApp) {
    let table = players(&app, &["ann", "bob"]).await;
    let id = finished_game(&app, &table).await;
    let path = format!("/v1/games/{id}/export");

    let plain = get_encoded(&app, &table[0], &path, "identity").await;
    assert_eq!(plain.status(), StatusCode::OK);
    assert_eq!(content_encoding(&plain), None);
    let plain = plain.bytes().await.expect("body").to_vec();
    let doc: Value = serde_json::from_slice(&plain).expect("the export is JSON");
    assert_eq!(doc["status"], "finished");
    assert_eq!(doc["complete"], true);

    let mut sizes = vec![format!("identity {} bytes", plain.len())];
    for encoding in ENCODINGS {
        let res = get_encoded(&app, &table[0], &path, encoding).await;
        assert_eq!(res.status(), StatusCode::OK, "{encoding}");
        assert_eq!(content_encoding(&res).as_deref(), Some(encoding));
        let vary = res
            .headers()
            .get_all(header::VARY)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect::<Vec<_>>()
            .join(",");
        assert!(vary.contains("accept-encoding"), "Vary: {vary}");
        let packed = res.bytes().await.expect("body").to_vec();
        assert!(
            packed.len() < plain.len() / 4,
            "{encoding}: {}",
            packed.len()
        );
        let unpacked: Value =
            serde_json::from_slice(&decode(encoding, &packed)).expect("decodes to JSON");
        assert_eq!(
            without_time(unpacked),
            without_time(doc.clone()),
            "{encoding} decodes to the plain document"
        );
        sizes.push(format!(
            "{encoding} {} bytes ({:.1}%)",
            packed.len(),
            100.0 * packed.len() as f64 / plain.len() as f64
        ));
    }
    // A client that takes several gets one of them.
    let res = get_encoded(&app, &table[0], &path, "gzip, deflate, br, zstd").await;
    assert!(content_encoding(&res).is_some_and(|e| ENCODINGS.contains(&e.as_str())));
    let events = doc["events"].as_array().map_or(0, Vec::len);
    println!(
        "export of a finished 2-player game ({:?}, {events} events): {}",
        app.backend,
        sizes.join(", ")
    );
}

async fn problems_and_conditional_gets_survive_compression(app: TestApp) {
    let table = players(&app, &["ann", "bob"]).await;
    let game = create(&app, &table[0], &json!({"options": {"players": 2}})).await;
    let id = game["id"].as_str().expect("id").to_string();
    join(&app, &table[1], &id).await;
    for encoding in ENCODINGS {
        // A problem: compressed, still problem+json with its code.
        let res = get_encoded(
            &app,
            &table[0],
            "/v1/games/00000000-0000-4000-8000-000000000000",
            encoding,
        )
        .await;
        assert_eq!(res.status(), StatusCode::NOT_FOUND);
        assert_eq!(
            res.headers()
                .get(header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok()),
            Some("application/problem+json")
        );
        let coded = content_encoding(&res);
        let bytes = res.bytes().await.expect("body").to_vec();
        let bytes = match coded.as_deref() {
            Some(e) => decode(e, &bytes),
            None => bytes,
        };
        let problem: Value = serde_json::from_slice(&bytes).expect("a problem");
        assert_eq!(problem["code"], "game_not_found");

        // The game: compressed with its ETag; the tag then gives a 304 with no body.
        let path = format!("/v1/games/{id}");
        let res = get_encoded(&app, &table[0], &path, encoding).await;
        assert_eq!(res.status(), StatusCode::OK);
        assert_eq!(content_encoding(&res).as_deref(), Some(encoding));
        let tag = res
            .headers()
            .get(header::ETAG)
            .and_then(|v| v.to_str().ok())
            .expect("ETag")
            .to_string();
        let res = app
            .request(reqwest::Method::GET, &path, table[0].token())
            .header(header::ACCEPT_ENCODING, encoding)
            .header(header::IF_NONE_MATCH, &tag)
            .send()
            .await
            .expect("sent");
        assert_eq!(res.status(), StatusCode::NOT_MODIFIED, "{encoding}");
        assert_eq!(content_encoding(&res), None);
        assert_eq!(
            res.headers()
                .get(header::ETAG)
                .and_then(|v| v.to_str().ok()),
            Some(tag.as_str())
        );
        assert!(res.bytes().await.expect("body").is_empty());
    }
}
