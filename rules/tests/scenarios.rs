//! Runs every scenario file in rules/scenarios (format: rules/scenarios/README.md). One test, so
//! that adding a rule case means adding a file; all failures are listed, not only the first.

mod common;
mod scenario;

use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use scenario::format::{File, Scenario};

fn load() -> Vec<(String, Scenario)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("rules/scenarios exists")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    let mut all = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(&path).unwrap();
        let file = path.file_name().unwrap().to_string_lossy().to_string();
        let parsed: File = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{file}: not a scenario file: {e}"));
        let scenarios = match parsed {
            File::One(s) => vec![*s],
            File::Many(list) => list,
        };
        all.extend(scenarios.into_iter().map(|s| (file.clone(), s)));
    }
    all
}

#[test]
fn scenario_files() {
    let scenarios = load();
    let mut names = BTreeSet::new();
    let mut failures = Vec::new();
    for (file, scenario) in &scenarios {
        assert!(
            names.insert(&scenario.name),
            "{file}: duplicate name {}",
            scenario.name
        );
        let result = catch_unwind(AssertUnwindSafe(|| scenario::run(scenario)));
        if let Err(panic) = result {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            failures.push(format!("{file} / {}: {message}", scenario.name));
        }
    }
    let rules: BTreeSet<&str> = scenarios
        .iter()
        .flat_map(|(_, s)| s.rules.iter().map(String::as_str))
        .collect();
    println!("{} scenarios; rules covered: {rules:?}", scenarios.len());
    assert!(
        failures.is_empty(),
        "{} of {} scenarios failed:\n{}",
        failures.len(),
        scenarios.len(),
        failures.join("\n\n")
    );
}
