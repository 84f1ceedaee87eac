//! CORS (`RACKO_CORS_ORIGINS`): preflights and response headers over HTTP, then a real
//! cross-origin `fetch` in headless Chromium (Debian's `chromium`, which `.ci/run` installs)
//! from a page served on another port. CORS does not depend on the store: SQLite only.

use std::{
    io::{Read, Write},
    net::TcpListener,
    path::PathBuf,
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use reqwest::{header, Method, Response, StatusCode};

use crate::common::{
    app::{assert_problem, json_body, spawn_app_with, TestApp},
    db::TestBackend,
};

const ALLOWED: &str = "http://allowed.example:8000";

async fn app_allowing(origins: &[&str]) -> TestApp {
    let origins: Vec<String> = origins.iter().map(|o| o.to_string()).collect();
    spawn_app_with(TestBackend::Sqlite, move |c| c.cors_origins = origins).await
}

fn header_of(res: &Response, name: &str) -> Option<String> {
    let values: Vec<&str> = res
        .headers()
        .get_all(name)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect();
    (!values.is_empty()).then(|| values.join(", "))
}

async fn preflight(app: &TestApp, origin: &str) -> Response {
    app.request(Method::OPTIONS, "/v1/games", None)
        .header(header::ORIGIN, origin)
        .header(header::ACCESS_CONTROL_REQUEST_METHOD, "POST")
        .header(
            header::ACCESS_CONTROL_REQUEST_HEADERS,
            "authorization, content-type, idempotency-key",
        )
        .send()
        .await
        .expect("sent")
}

#[actix_web::test]
async fn an_allowed_origin_gets_a_preflight_and_cors_headers() {
    let app = app_allowing(&[ALLOWED, "https://other.example"]).await;
    let res = preflight(&app, ALLOWED).await;
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    assert_eq!(
        header_of(&res, "access-control-allow-origin").as_deref(),
        Some(ALLOWED)
    );
    assert_eq!(
        header_of(&res, "access-control-allow-methods").as_deref(),
        Some("GET, POST, DELETE")
    );
    let allowed_headers = header_of(&res, "access-control-allow-headers").expect("allow headers");
    for name in [
        "authorization",
        "content-type",
        "idempotency-key",
        "if-match",
        "if-none-match",
        "x-request-id",
    ] {
        assert!(allowed_headers.contains(name), "{name}: {allowed_headers}");
    }
    assert!(header_of(&res, "access-control-max-age").is_some());
    assert!(header_of(&res, "vary").is_some_and(|v| v.contains("Origin")));
    assert!(
        header_of(&res, "x-request-id").is_some(),
        "preflights pass the observer"
    );
    assert!(res.bytes().await.expect("body").is_empty());

    // A real request: the origin is echoed and the useful headers are exposed, on successes
    // and on problems alike.
    let (token, _) = app.guest().await;
    let res = app
        .request(Method::GET, "/v1/me/games", Some(&token))
        .header(header::ORIGIN, ALLOWED)
        .send()
        .await
        .expect("sent");
    assert_eq!(
        header_of(&res, "access-control-allow-origin").as_deref(),
        Some(ALLOWED)
    );
    let exposed = header_of(&res, "access-control-expose-headers").expect("exposed headers");
    for name in [
        "ETag",
        "Retry-After",
        "Location",
        "X-Request-Id",
        "Idempotent-Replayed",
    ] {
        assert!(exposed.contains(name), "{name}: {exposed}");
    }
    let vary = header_of(&res, "vary").unwrap_or_default();
    assert!(
        vary.contains("Origin") && vary.contains("Authorization"),
        "{vary}"
    );
    assert!(header_of(&res, "access-control-allow-credentials").is_none());
    json_body(res, StatusCode::OK).await;
    let res = app
        .request(Method::GET, "/v1/me/games", None)
        .header(header::ORIGIN, ALLOWED)
        .send()
        .await
        .expect("sent");
    assert_eq!(
        header_of(&res, "access-control-allow-origin").as_deref(),
        Some(ALLOWED)
    );
    assert_problem(res, StatusCode::UNAUTHORIZED, "unauthorized").await;
}

#[actix_web::test]
async fn other_origins_get_no_cors_headers_but_are_served() {
    let app = app_allowing(&[ALLOWED]).await;
    for origin in [
        "http://evil.example",
        "http://allowed.example",
        "http://allowed.example:8000.evil",
        "null",
    ] {
        let res = preflight(&app, origin).await;
        assert_eq!(res.status(), StatusCode::METHOD_NOT_ALLOWED, "{origin}");
        assert_eq!(header_of(&res, "access-control-allow-origin"), None);
        assert_eq!(header_of(&res, "access-control-allow-methods"), None);
        let res = app
            .request(Method::GET, "/healthz", None)
            .header(header::ORIGIN, origin)
            .send()
            .await
            .expect("sent");
        assert_eq!(res.status(), StatusCode::OK, "served anyway");
        assert_eq!(header_of(&res, "access-control-allow-origin"), None);
        assert_eq!(header_of(&res, "access-control-expose-headers"), None);
    }
}

#[actix_web::test]
async fn without_origins_there_is_no_cors_at_all() {
    let app = app_allowing(&[]).await;
    let res = preflight(&app, ALLOWED).await;
    assert_eq!(res.status(), StatusCode::METHOD_NOT_ALLOWED);
    let res = app
        .request(Method::GET, "/healthz", None)
        .header(header::ORIGIN, ALLOWED)
        .send()
        .await
        .expect("sent");
    assert_eq!(res.status(), StatusCode::OK);
    for (name, _) in res.headers() {
        assert!(
            !name.as_str().starts_with("access-control-"),
            "{name} without CORS configured"
        );
    }
}

/// Serves `page` (HTML) at `/page.html` on `listener` from a thread, for the test's life.
fn serve_on(listener: TcpListener, page: String) {
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
            let mut request = Vec::new();
            let mut buf = [0u8; 1024];
            while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                match stream.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => request.extend_from_slice(&buf[..n]),
                }
            }
            let (status, body) = if request.starts_with(b"GET /page.html ") {
                ("200 OK", page.as_str())
            } else {
                ("404 Not Found", "")
            };
            let answer = format!(
                "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(answer.as_bytes());
        }
    });
}

/// A page that creates a game on the API with a token and a JSON body (a preflighted request),
/// then reads it back with `If-None-Match` (expecting 304), and writes what it saw into
/// `#result`.
fn page(api: &str, token: &str) -> String {
    format!(
        r#"<!doctype html>
<html><body><pre id="result">pending</pre>
<script>
const out = (text) => {{ document.getElementById("result").textContent = text; }};
(async () => {{
  try {{
    const headers = {{ "Authorization": "Bearer {token}", "Content-Type": "application/json" }};
    const created = await fetch("{api}/v1/games", {{
      method: "POST", headers, body: JSON.stringify({{ options: {{ players: 2 }} }}),
    }});
    const game = await created.json();
    const etag = created.headers.get("ETag");
    const again = await fetch("{api}/v1/games/" + game.id, {{
      headers: {{ ...headers, "If-None-Match": etag }}, cache: "no-store",
    }});
    out("created=" + created.status + " etag=" + etag + " request-id=" +
        (created.headers.get("X-Request-Id") ? "yes" : "no") +
        " revalidated=" + again.status + " again-etag=" + again.headers.get("ETag"));
  }} catch (e) {{
    out("failed: " + e);
  }}
}})();
</script></body></html>"#
    )
}

/// Runs headless Chromium on `url` and returns the DOM it dumps. Fails when Chromium is
/// missing: CI installs it (`.ci/run`), so a missing browser is a broken setup, not a skip.
async fn chromium_dom(url: String) -> String {
    actix_web::rt::task::spawn_blocking(move || {
        let profile = std::env::temp_dir().join(format!("racko-chromium-{}", uuid::Uuid::new_v4()));
        let child = Command::new("chromium")
            .args([
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-extensions",
                "--virtual-time-budget=15000",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .args(["--dump-dom", &url])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn();
        let mut child = child.unwrap_or_else(|e| {
            panic!(
                "cannot run `chromium` ({e}): the browser test needs Debian's chromium \
                 (`apt-get install -y chromium`; .ci/run installs it)"
            )
        });
        let started = Instant::now();
        while child.try_wait().ok().flatten().is_none() {
            if started.elapsed() > Duration::from_secs(90) {
                let _ = child.kill();
                panic!("chromium did not finish within 90 s");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let output = child.wait_with_output().expect("chromium output");
        let _ = std::fs::remove_dir_all(PathBuf::from(&profile));
        let dom = String::from_utf8_lossy(&output.stdout).to_string();
        assert!(
            output.status.success() && dom.contains("id=\"result\""),
            "chromium failed ({}):\n{dom}\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
        dom
    })
    .await
    .expect("the chromium task")
}

/// The text of `#result` in a dumped DOM.
fn result_of(dom: &str) -> String {
    dom.split_once("id=\"result\">")
        .and_then(|(_, rest)| rest.split_once("</pre>"))
        .map(|(text, _)| text.to_string())
        .unwrap_or_else(|| panic!("no #result in:\n{dom}"))
}

#[actix_web::test]
async fn a_browser_on_an_allowed_origin_can_call_the_api() {
    let app = app_with_page(true).await;
    let text = result_of(&chromium_dom(app.1).await);
    println!("allowed origin, the page shows: {text}");
    assert!(
        text.starts_with("created=201 etag=\"") && text.contains("request-id=yes"),
        "the allowed page: {text}"
    );
    assert!(
        text.contains("revalidated=304") && text.ends_with('"'),
        "the allowed page revalidates: {text}"
    );
}

#[actix_web::test]
async fn a_browser_on_another_origin_is_refused() {
    let app = app_with_page(false).await;
    let text = result_of(&chromium_dom(app.1).await);
    println!("other origin, the page shows: {text}");
    assert!(
        text.starts_with("failed: TypeError"),
        "the refused page: {text}"
    );
}

/// The API allowing (or not) the origin of a page that calls it; returns the app and the
/// page's URL.
async fn app_with_page(allow: bool) -> (TestApp, String) {
    // The page names the API's port and the API the page's origin: bind the page's port
    // first, then start the API, then serve the page on the bound listener.
    let listener = TcpListener::bind("127.0.0.1:0").expect("page listener");
    let page_port = listener.local_addr().expect("address").port();
    let page_origin = format!("http://127.0.0.1:{page_port}");
    let allowed = if allow {
        page_origin.clone()
    } else {
        "http://127.0.0.1:1".to_string()
    };
    let app = app_allowing(&[&allowed]).await;
    let (token, _) = app.guest().await;
    serve_on(listener, page(&app.address, &token));
    (app, format!("{page_origin}/page.html"))
}
