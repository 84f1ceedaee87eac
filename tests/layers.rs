//! The house's shape, checked: the top-level modules of `src/` name each other one way only
//! (no import cycle), each names only the layers its row of docs/architecture.md allows, and
//! no source file outgrows one sitting.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// From the ground up: a module may name only those of a lower rank.
const RANKS: &[(&str, u8)] = &[
    ("error", 0),
    ("store", 1),
    ("blocking", 1),
    ("config", 2),
    ("metrics", 2),
    ("auth", 3),
    ("telemetry", 3),
    ("notify", 4),
    ("service", 5),
    ("workers", 6),
    ("http", 7),
    ("app", 8),
];

/// Longest source file, in lines.
const MAX_LINES: usize = 400;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = fs::read_dir(dir).expect("a readable folder");
    for entry in entries {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file of `src/` belongs to (None for the crate roots).
fn module_of(file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src()).expect("under src");
    let first = rel.components().next()?.as_os_str().to_str()?.to_string();
    let name = first.strip_suffix(".rs").unwrap_or(&first).to_string();
    (name != "lib" && name != "main").then_some(name)
}

/// The top-level modules `text` names as `crate::x`, or inside `use crate::{x, …}`. A file's
/// own `#[cfg(test)] mod tests` at its end is left out: tests may reach anywhere.
fn named_modules(text: &str) -> BTreeSet<String> {
    let code = match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => &text[..at],
        None => text,
    };
    let mut names = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find("};").unwrap_or(group.len());
            let mut depth = 0;
            let mut word = String::new();
            let mut first = true;
            for ch in group[..end].chars() {
                match ch {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => first = true,
                    c if depth == 0 && first && (c.is_alphanumeric() || c == '_') => word.push(c),
                    _ if !word.is_empty() => {
                        names.insert(std::mem::take(&mut word));
                        first = false;
                    }
                    _ => {}
                }
            }
            if !word.is_empty() {
                names.insert(word);
            }
        } else {
            let word: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            names.insert(word);
        }
    }
    names
}

fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let ranks: BTreeMap<&str, u8> = RANKS.iter().copied().collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let Some(module) = module_of(&file) else {
            continue;
        };
        let text = fs::read_to_string(&file).expect("a readable file");
        let named = named_modules(&text);
        let entry = edges.entry(module.clone()).or_default();
        for other in named {
            if other != module && ranks.contains_key(other.as_str()) {
                entry.insert(other);
            }
        }
    }
    edges
}

#[test]
fn every_top_level_module_has_a_layer() {
    let ranks: BTreeSet<&str> = RANKS.iter().map(|(m, _)| *m).collect();
    let unplaced: Vec<String> = graph()
        .into_keys()
        .filter(|m| !ranks.contains(m.as_str()))
        .collect();
    assert!(
        unplaced.is_empty(),
        "give these modules a layer in RANKS (and docs/architecture.md): {unplaced:?}"
    );
}

#[test]
fn modules_name_only_the_layers_below() {
    let ranks: BTreeMap<&str, u8> = RANKS.iter().copied().collect();
    let mut upward = Vec::new();
    for (module, named) in graph() {
        let Some(own) = ranks.get(module.as_str()) else {
            continue;
        };
        for other in named {
            if ranks.get(other.as_str()).is_some_and(|r| r >= own) {
                upward.push(format!("{module} -> {other}"));
            }
        }
    }
    assert!(
        upward.is_empty(),
        "these modules name a layer at or above their own: {upward:?}"
    );
}

#[test]
fn no_import_cycle_between_top_level_modules() {
    let edges = graph();
    // Depth-first search for a back edge.
    fn visit<'a>(
        node: &'a str,
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| *n == node) {
            let mut cycle: Vec<String> = path[at..].iter().map(|n| n.to_string()).collect();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if !done.insert(node) {
            return None;
        }
        path.push(node);
        for next in edges.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, edges, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    for module in edges.keys() {
        if let Some(cycle) = visit(module, &edges, &mut Vec::new(), &mut done) {
            panic!("import cycle: {}", cycle.join(" -> "));
        }
    }
}

#[test]
fn source_files_fit_one_sitting() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut long: Vec<String> = files
        .iter()
        .filter_map(|file| {
            let lines = fs::read_to_string(file).expect("readable").lines().count();
            (lines > MAX_LINES).then(|| format!("{} ({lines})", file.display()))
        })
        .collect();
    long.sort();
    assert!(long.is_empty(), "over {MAX_LINES} lines: {long:?}");
}

#[test]
fn the_reader_finds_names_in_paths_and_groups() {
    let text = "use crate::store::Store;\nuse crate::{error::Code, http::{self, AppState}};\n\
                fn f() { crate::notify::x(); }\n#[cfg(test)]\nmod tests { use crate::app; }\n";
    let names: Vec<String> = named_modules(text).into_iter().collect();
    assert_eq!(names, ["error", "http", "notify", "store"]);
}
