//! Reading answers without being fooled by `serde_json`'s indexing, which gives `null` for a key
//! that is not there: a check that a hidden value is `null` would pass if its field were
//! renamed. `field` fails on a missing step instead.

use serde_json::Value;

/// The value at `path` in `v`: object keys and array indexes separated by dots, e.g.
/// `table.drawn` or `events.0.event.racks`. Panics, naming the step and showing `v`, when a
/// key or index is missing; a key that holds `null` is found.
pub fn field<'a>(v: &'a Value, path: &str) -> &'a Value {
    let mut here = v;
    for (i, step) in path.split('.').enumerate() {
        let next = match here {
            Value::Object(map) => map.get(step),
            Value::Array(items) => step.parse::<usize>().ok().and_then(|n| items.get(n)),
            _ => None,
        };
        here = next.unwrap_or_else(|| {
            let done = path.split('.').take(i).collect::<Vec<_>>().join(".");
            panic!("no {step:?} at {:?} (looking for {path:?}) in {v}", done)
        });
    }
    here
}

/// Asserts that the field at `path` is there and holds `null`: how an answer shows a value the
/// caller may not see (R8). `why` says what is hidden.
#[track_caller]
pub fn assert_withheld(v: &Value, path: &str, why: &str) {
    let found = field(v, path);
    assert!(found.is_null(), "{why}: {path} is {found} in {v}");
}

/// Asserts that `v` is an object without the key `absent` but with each key of `present`, so
/// that the absence is not that of a renamed key or of another shape.
#[track_caller]
pub fn assert_without(v: &Value, absent: &str, present: &[&str], why: &str) {
    let map = v
        .as_object()
        .unwrap_or_else(|| panic!("{why}: not an object: {v}"));
    assert!(!map.contains_key(absent), "{why}: {absent} is in {v}");
    for key in present {
        assert!(map.contains_key(*key), "{why}: {key} is missing from {v}");
    }
}
