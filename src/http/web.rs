//! The browser client (web/): its built files are embedded in the binary, so `racko serve`
//! serves a playable page at `/` and at the client's deep links with no Node.js at run time.
//! web/dist/ is committed and checked against its sources by scripts/check-web.sh.

use std::sync::LazyLock;

use actix_web::{http::header, web, HttpRequest, HttpResponse};
use sha2::{Digest, Sha256};

/// No inline script or style, nothing from another origin; the API is same-origin.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
    style-src 'self'; img-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; \
    frame-ancestors 'none'; form-action 'self'";

struct Asset {
    body: &'static [u8],
    content_type: &'static str,
    etag: String,
}

impl Asset {
    fn new(body: &'static [u8], content_type: &'static str) -> Asset {
        let digest = Sha256::digest(body);
        Asset {
            body,
            content_type,
            etag: format!("\"{}\"", hex::encode(&digest[..12])),
        }
    }
}

static PAGE: LazyLock<Asset> = LazyLock::new(|| {
    Asset::new(
        include_bytes!("../../web/dist/index.html"),
        "text/html; charset=utf-8",
    )
});
static SCRIPT: LazyLock<Asset> = LazyLock::new(|| {
    Asset::new(
        include_bytes!("../../web/dist/app.js"),
        "text/javascript; charset=utf-8",
    )
});
static STYLE: LazyLock<Asset> = LazyLock::new(|| {
    Asset::new(
        include_bytes!("../../web/dist/app.css"),
        "text/css; charset=utf-8",
    )
});
static ICON: LazyLock<Asset> = LazyLock::new(|| {
    Asset::new(
        include_bytes!("../../web/dist/favicon.svg"),
        "image/svg+xml",
    )
});

pub fn configure(cfg: &mut web::ServiceConfig) {
    for path in ["/", "/games/{id}", "/replay/{id}", "/join/{code}"] {
        cfg.service(web::resource(path).route(web::get().to(page)));
    }
    cfg.service(web::resource("/app.js").route(web::get().to(script)))
        .service(web::resource("/app.css").route(web::get().to(style)))
        .service(web::resource("/favicon.svg").route(web::get().to(icon)));
}

async fn page(req: HttpRequest) -> HttpResponse {
    serve(&req, &PAGE)
}

async fn script(req: HttpRequest) -> HttpResponse {
    serve(&req, &SCRIPT)
}

async fn style(req: HttpRequest) -> HttpResponse {
    serve(&req, &STYLE)
}

async fn icon(req: HttpRequest) -> HttpResponse {
    serve(&req, &ICON)
}

/// The file names carry no hash, so browsers revalidate every time (`no-cache`) and get a
/// bodiless 304 while the binary serves the same bytes.
fn serve(req: &HttpRequest, asset: &Asset) -> HttpResponse {
    let fresh = req
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|tags| tags.split(',').any(|t| t.trim() == asset.etag));
    let mut answer = if fresh {
        HttpResponse::NotModified()
    } else {
        HttpResponse::Ok()
    };
    answer
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header((header::ETAG, asset.etag.as_str()))
        .insert_header((header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header((header::REFERRER_POLICY, "no-referrer"));
    if fresh {
        return answer.finish();
    }
    answer.content_type(asset.content_type).body(asset.body)
}
