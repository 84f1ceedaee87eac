//! The error catalogue: every [`Code`] with its status, meaning and what a client should do,
//! as Markdown (committed as `docs/errors.md`, which a test keeps equal to this) and as the
//! HTML page `/docs/errors` that each problem's `type` links to.

use std::fmt::Write;
use std::sync::LazyLock;

use actix_web::{http::header, HttpRequest, HttpResponse};

use super::problem::status;
use crate::error::{catalogue::entry, Code};

/// Where the catalogue is served: `Problem.type` is this plus `#<code>`.
pub const PATH: &str = "/docs/errors";

/// A problem's `type`: relative to the server that sent it (RFC 9457 §3.1.1 resolves it
/// against the request's URI), so it works behind any host name or proxy.
pub fn problem_type(code: Code) -> String {
    format!("{PATH}#{code}")
}

fn status_text(code: Code) -> String {
    let s = status(code);
    format!("{} {}", s.as_u16(), s.canonical_reason().unwrap_or(""))
}

/// The catalogue as Markdown, in the order the codes are declared.
pub fn markdown() -> String {
    let mut out = String::from(
        "# Error catalogue\n\n\
         <!-- Generated from the `Code` enum (src/error.rs, src/error/catalogue.rs) by \
         `RACKO_BLESS=1 cargo test --lib http::errors`; do not edit by hand. -->\n\n\
         Every error is an RFC 9457 `application/problem+json` body. Its `code` is one of the \
         codes below and never changes meaning; its `type` links to the code's entry here \
         (`/docs/errors#<code>` on the server); `detail` is for people and may change. A \
         `Retry-After` header, where present, says how many seconds to wait before a retry.\n\n\
         | code | status |\n|---|---|\n",
    );
    for &code in Code::ALL {
        let _ = writeln!(out, "| [`{code}`](#{code}) | {} |", status_text(code));
    }
    for &code in Code::ALL {
        let e = entry(code);
        let _ = write!(
            out,
            "\n## {code}\n\n**Status:** {}\n\n{}\n\n**What to do:** {}\n",
            status_text(code),
            e.meaning,
            e.action
        );
    }
    out
}

/// Escapes text for HTML and turns `backticks` into `<code>`.
fn inline(text: &str) -> String {
    let escaped = text
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    let mut out = String::new();
    for (i, part) in escaped.split('`').enumerate() {
        if i % 2 == 1 {
            let _ = write!(out, "<code>{part}</code>");
        } else {
            out.push_str(part);
        }
    }
    out
}

fn html() -> String {
    let mut out = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>Racko error catalogue</title></head><body>\n<h1>Error catalogue</h1>\n\
         <p>Every error is an RFC 9457 <code>application/problem+json</code> body whose \
         <code>type</code> links here and whose <code>code</code> never changes meaning. \
         As Markdown: <code>Accept: text/markdown</code>.</p>\n",
    );
    for &code in Code::ALL {
        let e = entry(code);
        let _ = writeln!(
            out,
            "<section id=\"{code}\"><h2><code>{code}</code></h2><p><b>Status:</b> {}</p>\
             <p>{}</p><p><b>What to do:</b> {}</p></section>",
            status_text(code),
            inline(e.meaning),
            inline(e.action)
        );
    }
    out.push_str("</body></html>\n");
    out
}

static MARKDOWN: LazyLock<String> = LazyLock::new(markdown);
static HTML: LazyLock<String> = LazyLock::new(html);

/// The error catalogue.
///
/// Every error code with its status, meaning and what to do: HTML, whose sections each
/// problem's `type` links to, or the Markdown of `docs/errors.md` on `Accept: text/markdown`.
#[utoipa::path(get, path = "/docs/errors", tag = "ops", responses(
    (status = 200, description = "The catalogue: every error code, its status, meaning and remedy",
     content((String = "text/html"), (String = "text/markdown"))),
))]
pub async fn error_catalogue(req: HttpRequest) -> HttpResponse {
    let accept = req
        .headers()
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let mut res = HttpResponse::Ok();
    res.insert_header((header::VARY, "Accept"));
    if accept.contains("text/markdown") {
        res.content_type("text/markdown; charset=utf-8")
            .body(MARKDOWN.as_str())
    } else {
        res.content_type("text/html; charset=utf-8")
            .body(HTML.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const COMMITTED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/errors.md");

    /// `docs/errors.md` is the generated catalogue; `RACKO_BLESS=1` rewrites it.
    #[test]
    fn docs_errors_md_is_the_generated_catalogue() {
        let generated = markdown();
        if std::env::var_os("RACKO_BLESS").is_some() {
            std::fs::write(COMMITTED, &generated).expect("write docs/errors.md");
            return;
        }
        let committed = std::fs::read_to_string(COMMITTED).unwrap_or_default();
        assert!(
            committed == generated,
            "docs/errors.md is out of date with the Code enum. Regenerate it with\n\n    \
             RACKO_BLESS=1 cargo test --lib http::errors\n\nand commit the result."
        );
    }

    #[test]
    fn every_code_has_a_section_its_type_points_at() {
        let page = html();
        let md = markdown();
        for &code in Code::ALL {
            let fragment = problem_type(code);
            let anchor = fragment
                .strip_prefix("/docs/errors#")
                .expect("the catalogue");
            assert!(
                page.contains(&format!("<section id=\"{anchor}\">")),
                "{code}"
            );
            assert!(md.contains(&format!("\n## {anchor}\n")), "{code}");
            assert!(!entry(code).meaning.is_empty() && !entry(code).action.is_empty());
        }
    }

    #[test]
    fn inline_code_and_escapes() {
        assert_eq!(inline("a `b` <c>"), "a <code>b</code> &lt;c&gt;");
    }
}
