//! The README is a map: short, linking every page of `docs/`, and every relative link of the
//! README and of the pages leads to a file that exists (and, with `#anchor`, to a heading of
//! it), so moving or renaming a page or a heading cannot leave a dead link behind.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// The README's budget: a map, not the manual.
const README_MAX_BYTES: usize = 12 * 1024;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn pages() -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/ is readable")
        .map(|entry| entry.expect("a docs/ entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    pages.sort();
    pages
}

/// The text outside fenced code blocks: links shown as code are not links.
fn prose(markdown: &str) -> String {
    let mut fenced = false;
    let mut out = String::new();
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The targets of the inline links `[text](target)` in `markdown`.
fn links(markdown: &str) -> Vec<String> {
    let text = prose(markdown);
    let mut found = Vec::new();
    let mut rest = text.as_str();
    while let Some(start) = rest.find("](") {
        rest = &rest[start + 2..];
        let Some(end) = rest.find(')') else { break };
        let target = rest[..end].split_whitespace().next().unwrap_or_default();
        found.push(target.to_string());
        rest = &rest[end..];
    }
    found
}

/// The anchors GitHub gives the headings of `markdown`: lowercase, spaces to hyphens,
/// punctuation dropped, a repeated heading numbered from `-1`.
fn anchors(markdown: &str) -> HashSet<String> {
    let mut seen = HashSet::new();
    for line in prose(markdown).lines() {
        let Some(heading) = line.strip_prefix('#') else {
            continue;
        };
        let heading = heading.trim_start_matches('#').trim();
        let slug: String = heading
            .to_lowercase()
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('-'),
                c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                _ => None,
            })
            .collect();
        let mut unique = slug.clone();
        let mut n = 1;
        while seen.contains(&unique) {
            unique = format!("{slug}-{n}");
            n += 1;
        }
        seen.insert(unique);
    }
    seen
}

/// Every relative link of `file` that does not resolve, as "target: why".
fn dead_links(file: &Path) -> Vec<String> {
    let text = read(file);
    let dir = file.parent().expect("a file in a folder");
    let mut dead = Vec::new();
    for target in links(&text) {
        if target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let (path, anchor) = match target.split_once('#') {
            Some((path, anchor)) => (path, Some(anchor)),
            None => (target.as_str(), None),
        };
        let resolved = if path.is_empty() {
            file.to_path_buf()
        } else {
            dir.join(path)
        };
        if !resolved.exists() {
            dead.push(format!("{target}: no such file"));
            continue;
        }
        if let Some(anchor) = anchor {
            let is_markdown = resolved.extension().is_some_and(|ext| ext == "md");
            if is_markdown && !anchors(&read(&resolved)).contains(anchor) {
                dead.push(format!("{target}: no such heading"));
            }
        }
    }
    dead
}

#[test]
fn the_readme_is_a_short_map() {
    let size = read(&root().join("README.md")).len();
    assert!(
        size <= README_MAX_BYTES,
        "README.md is {size} bytes; details go in docs/ (at most {README_MAX_BYTES})"
    );
}

#[test]
fn every_docs_page_is_linked_from_the_readme() {
    let readme = read(&root().join("README.md"));
    let linked: HashSet<String> = links(&readme)
        .into_iter()
        .map(|target| target.split('#').next().unwrap_or_default().to_string())
        .collect();
    let pages = pages();
    assert!(pages.len() >= 10, "the docs pages are found: {pages:?}");
    let unlinked: Vec<String> = pages
        .iter()
        .filter_map(|page| page.file_name()?.to_str())
        .map(|name| format!("docs/{name}"))
        .filter(|page| !linked.contains(page))
        .collect();
    assert!(
        unlinked.is_empty(),
        "pages the README does not link: {unlinked:?}"
    );
}

#[test]
fn every_relative_link_resolves() {
    let mut files = vec![root().join("README.md"), root().join("CHANGELOG.md")];
    files.extend(pages());
    let mut dead = Vec::new();
    for file in &files {
        for link in dead_links(file) {
            dead.push(format!("{}: {link}", file.display()));
        }
    }
    assert!(dead.is_empty(), "dead links:\n{}", dead.join("\n"));
}

#[test]
fn anchors_are_spelled_as_github_spells_them() {
    let slugs =
        anchors("# Under faults: what the service promises\n## `racko verify FILE`\n## A\n## A\n");
    for slug in [
        "under-faults-what-the-service-promises",
        "racko-verify-file",
        "a",
        "a-1",
    ] {
        assert!(slugs.contains(slug), "{slug} in {slugs:?}");
    }
    assert_eq!(
        links("[a](x.md) `b` [c](y.md#z \"t\")\n```\n[d](nope.md)\n```\n"),
        ["x.md", "y.md#z"]
    );
}
