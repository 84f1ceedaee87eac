//! The browser client served by the binary (`http::web`): the page at `/` and at its deep
//! links with a strict Content-Security-Policy, its script and style with their content types,
//! revalidation by ETag, and the API's routes untouched. The page's behaviour is tested in a
//! real browser by scripts/check-web.sh. Nothing here depends on the store: SQLite only.

use reqwest::{header, Method, StatusCode};

use crate::common::{
    app::{assert_problem, spawn_app},
    db::TestBackend,
};

fn header_of(res: &reqwest::Response, name: header::HeaderName) -> String {
    res.headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string()
}

#[actix_web::test]
async fn the_page_and_its_deep_links_answer_with_a_strict_csp() {
    let app = spawn_app(TestBackend::Sqlite).await;
    for path in [
        "/",
        "/games/0b7e4f0e-7d2c-4a5e-9d49-1f0d2b6f3a10",
        "/replay/0b7e4f0e-7d2c-4a5e-9d49-1f0d2b6f3a10",
        "/join/ABCD1234",
    ] {
        let res = app.get(path, None).await;
        assert_eq!(res.status(), StatusCode::OK, "{path}");
        assert_eq!(
            header_of(&res, header::CONTENT_TYPE),
            "text/html; charset=utf-8"
        );
        let csp = header_of(&res, header::CONTENT_SECURITY_POLICY);
        assert!(csp.starts_with("default-src 'self'"), "{path}: {csp}");
        assert!(
            !csp.contains("unsafe-inline") && !csp.contains("unsafe-eval"),
            "{csp}"
        );
        assert!(
            csp.contains("script-src 'self'") && csp.contains("object-src 'none'"),
            "{csp}"
        );
        assert_eq!(header_of(&res, header::CACHE_CONTROL), "no-cache");
        assert_eq!(header_of(&res, header::X_CONTENT_TYPE_OPTIONS), "nosniff");
        let body = res.text().await.expect("body");
        assert!(
            body.contains(r#"<script type="module" src="/app.js"></script>"#),
            "{body}"
        );
        // no inline script: every <script> has a src
        assert_eq!(
            body.matches("<script").count(),
            body.matches("<script type=\"module\" src=").count()
        );
    }
}

#[actix_web::test]
async fn the_script_and_style_have_their_types_and_revalidate_by_etag() {
    let app = spawn_app(TestBackend::Sqlite).await;
    for (path, kind) in [
        ("/app.js", "text/javascript; charset=utf-8"),
        ("/app.css", "text/css; charset=utf-8"),
        ("/favicon.svg", "image/svg+xml"),
    ] {
        let res = app.get(path, None).await;
        assert_eq!(res.status(), StatusCode::OK, "{path}");
        assert_eq!(header_of(&res, header::CONTENT_TYPE), kind);
        let etag = header_of(&res, header::ETAG);
        assert!(etag.starts_with('"') && etag.len() > 10, "{etag}");
        assert!(!res.bytes().await.expect("body").is_empty());
        let again = app
            .request(Method::GET, path, None)
            .header(header::IF_NONE_MATCH, &etag)
            .send()
            .await
            .expect("sent");
        assert_eq!(again.status(), StatusCode::NOT_MODIFIED, "{path}");
        assert!(again.bytes().await.expect("body").is_empty());
    }
}

#[actix_web::test]
async fn the_api_routes_are_untouched() {
    let app = spawn_app(TestBackend::Sqlite).await;
    let spec = app.get("/openapi.json", None).await;
    assert_eq!(header_of(&spec, header::CONTENT_TYPE), "application/json");
    let res = app.get("/games", None).await;
    assert_problem(res, StatusCode::NOT_FOUND, "not_found").await;
    let res = app.get("/games/a/b", None).await;
    assert_problem(res, StatusCode::NOT_FOUND, "not_found").await;
    let res = app
        .request(Method::POST, "/", None)
        .send()
        .await
        .expect("sent");
    assert_eq!(res.status(), StatusCode::METHOD_NOT_ALLOWED);
    let res = app.get("/v1/games/not-a-uuid", None).await;
    assert_ne!(
        header_of(&res, header::CONTENT_TYPE),
        "text/html; charset=utf-8"
    );
}
